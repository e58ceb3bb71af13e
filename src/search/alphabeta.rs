//! The main search: iterative deepening over a PVS alpha-beta with aspiration windows, a
//! transposition table, threat-aware move generation and VCF at the leaves.
//!
//! Move generation only offers moves that matter: when the opponent threatens five, the block;
//! when the opponent can make a straight four (has a three), the defences and our own fours;
//! otherwise empty cells near stones, ordered by their pattern scores, the hash move, killers and
//! history. Forced replies extend the search. Values are "centi-stones" from the side to move,
//! with mate scores `MATE - plies` for forced wins.

use super::policy::{window_of, Tables, WINDOWS};
use super::tt::{self, Tt, BOUND_EXACT, BOUND_LOWER, BOUND_UPPER};
use super::vcf::{Vcf, VcfCache};
use super::vct::{Vct, VctCache};
use crate::board::fast::{near_list, unpack_near, FastBoard, Idx, NearList};
use crate::board::pattern::{EvalWeights, Threat};
use crate::pos::MAX_SIDE;
use crate::types::{Color, Rule, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Deepest ply the search stack supports.
pub const MAX_PLY: usize = 96;
/// Win at the root.
pub const MATE: i32 = Value::MATE.0;
/// Beyond any value.
pub const INF: i32 = Value::INFINITE.0;
/// Nodes between two looks at the clock and the stop flag.
pub const CHECK_EVERY_NODES: u64 = 1024;
/// Attacker moves a leaf VCF may use.
pub const LEAF_VCF_DEPTH: u32 = 6;
/// Node cap of one leaf VCF.
pub const LEAF_VCF_NODES: u64 = 300;
/// Attacker moves of a VCF at an interior node.
pub const INTERIOR_VCF_DEPTH: u32 = 12;
/// Node cap of a VCF at an interior node.
pub const INTERIOR_VCF_NODES: u64 = 3000;
/// At non-PV nodes only the best-ordered moves are searched.
/// 12 from depth 1 beat 18 from depth 2 by +95 Elo (60 games, 100 ms/move, freestyle and
/// standard, 95% interval about +8..+195).
pub const NON_PV_MOVE_LIMIT: usize = 12;
/// Move-ordering bonus per threat class of a cell (indexed by [`Threat`]), on top of its cell
/// score: a double three. The fitted evaluation gives such a cell no extra value, but the move
/// ordering wants it early: +38 ± 60 Elo in freestyle, +28 ± 57 in exact five, -3 ± 62 in renju
/// (200 ms/move, 100 games each, `o5=250` against the same build).
pub const ORDER_BONUS: [i32; 10] = [0, 0, 0, 0, 0, 250, 0, 0, 0, 0];
/// Reverse futility margin per ply of remaining depth (depths 1-3, non-PV nodes): against
/// the same build without it, 200 ms/move, 100 games each, +115 ± 73 Elo in freestyle, +85 ±
/// 62 in exact five, +28 ± 60 in renju, +89 ± 53 in caro; margins 50 and 200 gained
/// less in freestyle (+81, +21), and so did allowing it up to depth 5 (+63).
pub const RFP_MARGIN: i32 = 100;
/// Depth-dependent move limit at non-PV nodes: at most `LMP_BASE + depth^2 / 2` moves (and
/// never more than [`NON_PV_MOVE_LIMIT`]). Together with [`LMR_LOG_DIV`], on top of reverse
/// futility pruning, against the same build without both (200 ms/move, 100 games each):
/// freestyle +56 ± 62, exact five +28 ± 62, renju +31 ± 62, caro +74 ± 65; without reverse
/// futility pruning the pair measured about +25 ± 33 over 420 games at 500 ms/move.
pub const LMP_BASE: usize = 3;
/// Logarithmic late-move reductions: `ln(depth) * ln(move number) * 10 / LMR_LOG_DIV` plies
/// (one less at PV nodes, at least one, leaving at least one ply).
pub const LMR_LOG_DIV: i32 = 18;
/// The divisor of the logarithmic reductions in a long search (0 = [`LMR_LOG_DIV`] always; knob
/// `lmrlong`): one whose hard time limit is at least [`LONG_SEARCH_MS`], or that has no time
/// limit. More reduction (14 instead of 18) scored about -12 ± 35 Elo over 373 self-play games
/// at 1 s a move and faster, but against PentaZen at Gomocup's fastgame clock (5 s a move, 20x20
/// freestyle) it scored 29-0-11 and 14-0-10 on the openings where 18 scored 18-0-22 and 14-0-10:
/// +0.17 ± 0.15 points a game over 64 paired games (fiftieth session, docs/measurements.md).
pub const LMR_LOG_DIV_LONG: i32 = 14;
/// The hard time limit from which a search counts as long (knob `longms`).
pub const LONG_SEARCH_MS: u64 = 2000;
/// Late-move reductions reduce threat moves too (moves that make or stop a three), not only
/// quiet ones; not the side to move's fours. Reducing every move (`lmrq=1`) against only quiet
/// ones (`lmrq=0`), 200 ms/move, 100-game runs, per-game 95 % intervals: freestyle 57-6-37 and
/// 52-10-38, +60 ± 41 (200 games); exact five 47-4-49, -7 ± 61; renju 53-7-40, +45 ± 53; caro
/// 49-22-29, +70 ± 53; all 500 games 258-49-193, +45 ± 25. Sparing the fours (`lmrq=2`)
/// against `lmrq=1`: freestyle 39-8-53, renju 53-4-43, together 92-12-96 (-7 ± 47); it is the
/// default because with reduced fours a search can miss the opponent's continuous fours and
/// report a win that is none (the tactical suite's f15-d07 at depth 10). In exact five every
/// move is reduced ([`lmr_threats_for`]).
pub const LMR_THREATS: u8 = 2;
/// The `lmr_threats` value that stands for "the rule's default" ([`lmr_threats_for`]) until
/// [`Tuning::for_rule`] resolves it.
pub const LMR_THREATS_PER_RULE: u8 = 4;

/// Which late moves the search under `rule` reduces by default (see [`Tuning::lmr_threats`]):
/// every move in exact five, every move but own fours elsewhere ([`LMR_THREATS`]). Against
/// PentaZen 0.4.17 at 1 s in exact five (three 60-game runs each on the same openings,
/// fourteenth session), reducing own fours too scored 85 points of 180 against 63.5: +0.12 ±
/// 0.08 points per game (about +85 Elo). In freestyle (+0.03) and renju (+0.01) it made no
/// measurable difference, so they keep sparing own fours.
pub fn lmr_threats_for(rule: Rule) -> u8 {
    if rule == Rule::Exact {
        1
    } else {
        LMR_THREATS
    }
}

/// The `singular_depth` value that stands for "the rule's default" ([`singular_depth_for`])
/// until [`Tuning::for_rule`] resolves it.
pub const SINGULAR_PER_RULE: i32 = -1;

/// The smallest depth of a singular test under `rule` by default (see
/// [`Tuning::singular_depth`]; 0 = off). Against the same build without them at 300 ms a move
/// (ninety-first session; docs/measurements.md): freestyle +52 ± 25 (600 games), renju +38 ±
/// 37 and exact five +70 ± 34 (300 each); caro +24 ± 23 (600, ninety-second session; caro8
/// follows caro, not measured on its own). At 1 s a move in freestyle, +63 ± 42 (200 games,
/// ninety-sixth session). The same in every rule so far, kept per rule so a rule can differ
/// once measured.
pub fn singular_depth_for(rule: Rule) -> i32 {
    match rule {
        Rule::Freestyle | Rule::Renju | Rule::Exact | Rule::Caro { .. } => 6,
    }
}
/// Distance-scaled move ordering (knob `far`): cells far from the last moves score less, except
/// in renju. Against the same build without it, 200 ms/move, 100-game runs: freestyle 57-6-37,
/// 49-11-40 and 53-7-40 (+49 over 300 games), exact five 48-12-40, caro 45-21-34; renju 46-4-50,
/// 44-4-52 and 41-4-55 (-30 over 300 games). Against PentaZen at 200 ms (the same 100 openings
/// each, paired): freestyle 51-2-47 against 38-6-56 without it, exact five 46-7-46 against
/// 42-2-56, renju 50-0-50 against 53-2-45. Where a move-ordering policy is in use (every rule
/// on 15x15 and 20x20 freestyle, see [`super::policy`]) its score takes the place of this
/// scaling.
pub const FAR_SCALE: u8 = 2;

/// The default weight of the side to move's own cell score in the move ordering, in 16ths of
/// the opponent's: two in renju, one and a half elsewhere. Two against one and a half, 200
/// ms/move, 100-game runs against the same build: renju 58-4-38 and 56-4-40 (+63 over 200
/// games); freestyle 50-9-41, exact five 37-14-49, caro about even (so those keep 24). Like
/// [`FAR_SCALE`], it matters only where no move-ordering policy is in use.
pub fn order_attack_16ths(rule: Rule) -> i32 {
    if rule == Rule::Renju {
        32
    } else {
        24
    }
}
/// Move-ordering bonus for cells within two steps (both ways) of the opponent's last move, and
/// [`COUNTER_MOVE_BONUS`] for the move that last refuted it: together, against the same build
/// without them (200 ms/move, 100-game runs, per-game 95 % intervals): freestyle 166-25-109,
/// +67 ± 38 (300 games); exact five 102-18-80, +38 ± 46 (200); caro 90-47-63, +47 ± 43 (200);
/// renju 140-11-149, -10 ± 39 (300); all 1000 games +34 ± 21. Alone, each gained only about
/// +7 in freestyle.
pub const LAST_MOVE_BONUS: i32 = 100;
/// Move-ordering bonus for the counter move (see [`LAST_MOVE_BONUS`]).
pub const COUNTER_MOVE_BONUS: i32 = 150;
/// Move-ordering bonus for cells within two steps (both ways) of the side to move's own last
/// move: a player's next move usually builds on its last one. Against the same build without it
/// (100 ms/move, balanced openings, both colours, per-game 95 % intervals): freestyle 215-23-162,
/// +46 (+13 .. +80); exact five 153-21-126, +31 (-6 .. +70); renju 161-10-129, +37 (-1 .. +77);
/// caro 123-75-102, +24 (-10 .. +59). README, "Measured", twentieth session.
pub const OWN_LAST_MOVE_BONUS: i32 = 100;
/// Half-width of the first aspiration window, in centi-stones.
pub const ASPIRATION_WINDOW: i32 = 60;
/// Largest history entry when history has a malus (see [`Tuning::history_malus`]).
pub const HISTORY_MAX: i32 = 4096;
/// The continuation history's reach (knob `cont`): cells within this many steps (both ways)
/// of the opponent's last move.
const CONT_REACH: i32 = 4;
/// Continuation-history entries per last move and colour: the square of [`CONT_REACH`].
const CONT_SQUARE: usize = ((2 * CONT_REACH + 1) * (2 * CONT_REACH + 1)) as usize;

/// Search knobs, for A/B matches (`examples/selfplay.rs`). Production code uses the defaults;
/// an experiment sets them per thread with [`set_tuning`] before calling `think`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tuning {
    /// Moves searched at non-PV nodes of depth >= `limit_min_depth` (0 = all).
    pub non_pv_move_limit: usize,
    /// Depth-dependent move limit at non-PV nodes (0 = off, default [`LMP_BASE`]): at most
    /// `lmp_base + depth^2 / 2` moves (and never more than `non_pv_move_limit`).
    pub lmp_base: usize,
    /// Smallest remaining depth where the non-PV move limit applies.
    pub limit_min_depth: i32,
    /// Moves searched at PV nodes other than the root (0 = all, the default; knob `pvlimit`).
    pub pv_move_limit: usize,
    /// Move-count pruning by quietness (knob `mcp`, 0 = off, the default): at every node from
    /// ply 2 on (PV nodes too) that is not a forced block, at most `min(round(5 sqrt(d) - 2),
    /// mcp)` moves when either side can make a flex three or a four somewhere, else at most
    /// `min(round(15 sqrt(d) - 12), 32)` moves (an idea from PentaZen's published search).
    pub move_count_cap: usize,
    /// A transposition-table bound tighter than the static value replaces it for reverse
    /// futility pruning (knob `ttse`, off by default).
    pub tt_static: bool,
    /// A stored mate bound cuts off a non-PV node whatever the depth it was searched to (knob
    /// `ttmate`: 1 = wins only, 2 = wins and losses): a forced win found once is not searched
    /// again each iteration.
    pub tt_mate: u8,
    /// Razoring margin per ply (0 = off, the default; knob `razor`): at non-PV nodes of depth
    /// below `razor_depth` whose static value is this far below alpha, the leaf value stands.
    pub razor: i32,
    /// Razoring applies below this depth (knob `razordepth`, default 4).
    pub razor_depth: i32,
    /// Which late moves late-move reductions reduce (knob `lmrq`): 0 = only quiet ones (neither
    /// side's three or more); 1 = every move; 2 = every move but the side to move's fours, the
    /// default outside exact five (see [`LMR_THREATS`]); 3 = as 2 only when the opponent can
    /// make a straight four (there the fours are counter-attacks), else every move;
    /// [`LMR_THREATS_PER_RULE`] (the default) = the rule's value, [`lmr_threats_for`].
    pub lmr_threats: u8,
    /// Moves searched before late-move reductions start (knob `lmrfrom`, default 3).
    pub lmr_from: usize,
    /// Move ordering: the pattern score of a cell more than four steps from both of the last
    /// two moves is halved, and quartered when it is also far from the two before (knob `far`):
    /// 0 = never, 1 = under every rule, 2 = except in renju (the default, see [`FAR_SCALE`]).
    pub far_scale: u8,
    /// The distance beyond which a cell is far from a move for `far` (knob `farr`, default 4).
    pub far_radius: i32,
    /// Move ordering from a fitted policy where one is built in for the rule and board (every
    /// rule on 15x15, and 20x20 freestyle), or given by `RENSA_POLICY` (knob `pol`, 1 = on,
    /// the default; 0 = off). [`super::policy`] gives what it gained, rule by rule.
    pub policy: u8,
    /// Which empty cells are candidates (knob `star`): 0 = those with a stone in the 5x5 square
    /// around them (the default), 1 = those with a stone on a line through them within two
    /// steps (the 16-cell "star"), except at the root, 2 = the star at the root too.
    pub near_star: u8,
    /// Move ordering: the weight of the side to move's own cell score against the opponent's,
    /// in 16ths, under every rule (knob `ordatk`); 0 = each rule's default
    /// ([`order_attack_16ths`]).
    pub order_attack_16ths: i32,
    /// VCF at quiet leaves (off by default: in 100 ms selfplay it cost more time than it won,
    /// 92-65-3 over three 40-60 game runs for the side without it).
    pub leaf_vcf: bool,
    /// VCF at leaves whose static value is below beta (knob `vcfb`, off).
    pub leaf_vcf_below_beta: bool,
    /// Node cap of a leaf VCF.
    pub leaf_vcf_nodes: u64,
    /// Late-move reductions.
    pub lmr: bool,
    /// Logarithmic reductions (0 = off: one ply, two from the ninth move; default
    /// [`LMR_LOG_DIV`]): late quiet moves are reduced by
    /// `ln(depth) * ln(move number) * 10 / lmr_log_div` plies (less at PV nodes).
    pub lmr_log_div: i32,
    /// The divisor in a long search (0 = `lmr_log_div`), see [`LMR_LOG_DIV_LONG`].
    pub lmr_log_div_long: i32,
    /// See [`LONG_SEARCH_MS`].
    pub long_search_ms: u64,
    /// Evaluation weight of the side to move's potential, in 1/16ths.
    pub initiative_16ths: i64,
    /// After the search, replace a best move that allows an opponent VCF by the first ordered
    /// root move that does not.
    pub root_safety: bool,
    /// Interior nodes with at least this remaining depth look for a VCF of the side to move
    /// (0 = never).
    pub vcf_min_depth: i32,
    /// Quick win check: a four-three or a double three of the side to move wins when the
    /// opponent cannot make a four.
    pub quick_win: bool,
    /// Time policy: percent of the target time after which a stable best move stops deepening.
    pub stable_stop_pct: u64,
    /// Time policy: percent of the hard limit after which no new iteration starts.
    pub next_iteration_pct: u64,
    /// Time policy when the per-turn limit binds (0 = as otherwise): both percentages above
    /// become this percent of the hard limit (knob `turnpct`, see
    /// [`super::time::stop_percentages`]).
    pub turn_bound_pct: u64,
    /// Time policy: a completed iteration whose value fell at least this much below the one
    /// before makes the position unclear (0 = never; knob `dropext`, see
    /// [`super::time::should_stop_with`]).
    pub drop_margin: i32,
    /// Time policy: percent of the target time an unclear position may use (knob `droppct`).
    pub drop_target_pct: u64,
    /// Time policy: the most moves the match clock is spread over (knob `mtg`, see
    /// [`super::time::budget_with`]).
    pub moves_to_go: u64,
    /// Null-move reduction (0 = no null moves): at non-PV nodes whose static value reaches beta
    /// and whose opponent can make no four and no double three, a pass searched `nmp + 1 +
    /// depth / 4` plies shallower that still fails high cuts the node.
    pub nmp: i32,
    /// Smallest remaining depth for a null move.
    pub nmp_depth: i32,
    /// Reverse futility margin per ply of depth (0 = off, default [`RFP_MARGIN`]): a non-PV
    /// node of depth at most `rfp_depth` whose static value exceeds beta by `rfp * depth`,
    /// when the opponent has no cell for a straight four, a four-three or a double three,
    /// returns its static value.
    pub rfp: i32,
    /// Largest remaining depth for reverse futility pruning.
    pub rfp_depth: i32,
    /// Futility margin per ply of depth (0 = off): at a non-PV node of depth at most
    /// `fut_depth` whose static value plus `fut * depth` cannot reach alpha, quiet moves after
    /// the first are skipped.
    pub fut: i32,
    /// Largest remaining depth for futility pruning.
    pub fut_depth: i32,
    /// Internal iterative reduction (0 = off): a node of at least this depth without a hash
    /// move is searched one ply shallower.
    pub iir: i32,
    /// Internal iterative deepening (0 = off, the default; knob `iid`): a non-root node of at
    /// least this depth without a hash move is first searched at half depth for one.
    pub iid: i32,
    /// Half-width of the first aspiration window at the root, in centi-stones (knob `asp`,
    /// default [`ASPIRATION_WINDOW`]); each failed try widens the failing side by the current
    /// width and triples the width.
    pub aspiration: i32,
    /// History with a malus: at a cutoff every move ordered before the cutting move loses what
    /// it gains, and entries saturate at +-[`HISTORY_MAX`].
    pub history_malus: bool,
    /// Saturating history (knob `hgrav`): entries move towards +-[`HISTORY_MAX`] by the
    /// gravity formula, so they keep their order however long the search runs, and the
    /// ordering uses the whole range (entry / 32, at most 128). Off: entries grow by
    /// depth^2 without bound and the ordering clamps them at +-1000 (then / 8), so in a long
    /// search most cells that ever cut off look the same.
    pub history_gravity: bool,
    /// History-adjusted reductions (0 = off): a late move's reduction shrinks by its history
    /// over this divisor (and grows when its history is negative).
    pub lmr_history_div: i32,
    /// Killer moves are not reduced.
    pub killer_no_reduce: bool,
    /// Move-ordering bonus for cells within two steps (both ways) of the opponent's last move.
    pub last_bonus: i32,
    /// Move-ordering bonus for cells within two steps of the side to move's own last move
    /// (knob `ownb`, default [`OWN_LAST_MOVE_BONUS`]).
    pub own_last_bonus: i32,
    /// Move-ordering bonus for the counter move: the move that last refuted the opponent's
    /// last move.
    pub counter_bonus: i32,
    /// (Experiment, knob `cutr`) extra late-move reduction at expected cut nodes.
    pub cut_reduction: i32,
    /// (Experiment, knob `polr`; 0 = off) with a move-ordering policy, a reduced late move is
    /// reduced one more ply for every this many ordering units its score lies below the node's
    /// best-scored move (up to two more plies).
    pub policy_reduce: i32,
    /// (Experiment, knob `polrl`; 0 = off) with a policy, a reduced late move whose ordering
    /// score is within this many units of the node's best is reduced one ply less.
    pub policy_keep: i32,
    /// (Experiment, knob `polp`; 0 = off) with a policy, at non-PV nodes of depth 4 or less a
    /// move other than a four whose ordering score lies more than this many units per ply of
    /// depth below the node's best is skipped (once two moves have been searched).
    pub policy_prune: i32,
    /// Interior VCT (0 = off): nodes with at least this remaining depth whose side to move can
    /// make a three or a four look for a win by continuous threats (knobs `vctn`: node cap,
    /// `vctt`: threes, `vctdepth`: attacker moves).
    pub vct_min_depth: i32,
    pub vct_nodes: u64,
    pub vct_threes: u32,
    pub vct_depth: u32,
    /// The root VCT may use the target time over this divisor (0 = no root VCT; default
    /// [`crate::search::ROOT_VCT_TIME_DIVISOR`]).
    pub root_vct_divisor: u64,
    /// Root VCT limits: threes (`rvctt`), attacker moves (`rvctdepth`), and under a clock its
    /// node cap: `rvctrate` nodes per millisecond of its time share (default
    /// [`crate::search::ROOT_VCT_NODES_PER_MS`]), at least [`crate::search::ROOT_VCT_NODES`]
    /// and at most `rvctn` (default [`crate::search::ROOT_VCT_CLOCK_NODES`]). Searches without
    /// a clock keep [`crate::search::ROOT_VCT_NODES`].
    pub root_vct_threes: u32,
    pub root_vct_depth: u32,
    pub root_vct_nodes: u64,
    pub root_vct_rate: u64,
    /// Experiment: the rest of the root VCT's share to a wider run (`rvctwide`, off).
    pub root_vct_wide: bool,
    /// Experiment: the rest of the root VCT's share to the proof-number solver
    /// ([`crate::search::pnvct`]) with this many threes (`rvctpn`; 0 = off).
    pub root_vct_pn: u32,
    /// Experiment: renju's swap2 even point ([`crate::protocol::swap2::even_point`]; knob
    /// `s2even`, default 75).
    pub swap2_renju_even: i32,
    /// Experiment: the even point of renju swap2 proposals only (`s2prop`; default: the even
    /// point of the decisions, `s2even`).
    pub swap2_renju_proposal_even: Option<i32>,
    /// Experiment: renju swap2 proposals from the wide candidates of every other rule instead of
    /// the balanced renju openings (`s2wide`, off).
    pub swap2_renju_wide: bool,
    /// Node cap of the root's VCF-threat search ([`crate::search::vcf_threat`]; `vcft`, 0 =
    /// off), run when the root VCF and VCT find nothing, on the `vcftn` best-scored quiet moves.
    pub root_vcf_threat_nodes: u64,
    pub root_vcf_threat_moves: usize,
    /// Node cap of each check of the root's defence against an opponent VCF (knob `vcfdef`,
    /// 0 = off, the default; try [`crate::search::ROOT_VCF_DEFENCE_NODES`]; see
    /// [`Searcher::exclude_vcf_losses`]). It answers every `defend` entry of the tactical suites
    /// at 50 ms, but lost about 18 Elo in freestyle self-play at 100 ms over 4 000 games
    /// (README, "Measured").
    pub root_vcf_defence_nodes: u64,
    /// Experiment: run the checks of `vcfdef` but exclude nothing (`vcfdefx=0`).
    pub root_vcf_defence_exclude: bool,
    /// Experiment: with `vcfdef`, never play a move without a search (`vcfdefi=0`).
    pub root_vcf_defence_instant: bool,
    /// Experiment: with `vcfdef`, whether fours are checked (`vcfdef4`, 1 = yes, the default).
    /// A four after whose block the opponent still threatens a VCF does not lose by itself (the
    /// side to move may defend after the exchange); with `vcfdef4=0` fours are neither left
    /// out nor counted as defences.
    pub root_vcf_defence_fours: bool,
    /// Node cap of the threat-safety check (0 = off, the default; try
    /// [`crate::search::SAFETY_VCT_NODES`]): each new best move of the iterative deepening after
    /// which the opponent has a VCT is excluded and the iteration searched again without it. In
    /// 200 ms/move A/B matches it did not gain (freestyle 48-4-48 and renju 50-4-46 checking only
    /// the final move; freestyle 42-11-47 checking each new best move with a time cap).
    pub safety_vct_nodes: u64,
    /// Renju white defends against black's straight-four points only when one of them is not a
    /// foul (knob `rfoul`; off: every such point counts).
    pub renju_fouls_defend: bool,
    /// Renju black's cells that would be fouls (double fours, double threes) score nothing for
    /// black in the evaluation (knob `rfz`, off by default, see
    /// [`crate::board::pattern::combo_for`]; takes effect through [`set_process_tuning`] only,
    /// before the first renju board is built).
    pub renju_foul_scores_zero: bool,
    /// "Improving" (the static value beats the one two plies up): reverse futility pruning
    /// uses one ply less of margin for an improving node (knob `imprfp`).
    pub improving_rfp: bool,
    /// The move limit of an improving node grows by `depth^2 / 2` (knob `implmp`).
    pub improving_lmp: bool,
    /// Slots per bucket of the transposition table (knob `ttways`, 1 to 8, rounded down to a
    /// power of two by [`super::tt::Tt::with_ways`]; default [`super::tt::WAYS`]); read when a
    /// table is created.
    pub tt_ways: usize,
    /// Leaf threat extension (0 = off): a leaf whose opponent can make a straight four is
    /// searched one more ply, while the path is at most this many plies longer than the
    /// iteration's depth.
    pub leaf_ext: i32,
    /// (Knob `dext`, 0 = off) the defences against a three (the opponent can make a straight
    /// four) cost no depth, at most this many times on a path.
    pub defence_ext: i32,
    /// (Knob `dextpv`) the defence extension at PV nodes only.
    pub defence_ext_pv: bool,
    /// Move-ordering bonus per threat class of a cell (keys `o1`..`o9`), for the side to move's
    /// threat (weighted like its cell score) and the opponent's (see [`ORDER_BONUS`]).
    pub order_bonus: [i32; 10],
    /// Evaluation indicator terms (keys `i1`..`i16`, see [`crate::eval::evaluate_with`]; all zero = off). Not
    /// used in caro, whose evaluation keeps its hand-set form.
    pub indicators: [i32; 16],
    /// Percent of the evaluation network's value in the static value, where the rule has a
    /// network (knob `netpct`, default [`crate::eval::NET_SHARE_PCT`]; 0 = the pattern
    /// evaluation alone, as before).
    pub net_pct: i32,
    /// Move a network's area-dependent inputs to the board it was fitted on
    /// ([`crate::eval::SizeShift`]; knob `netshift`, default on: off its own board a network
    /// gained 50 to 200 Elo more with it, README "Measured", twenty-eighth session).
    pub net_shift: bool,
    /// The side of the board a network was fitted on, for one given by `RENSA_NET` (knob
    /// `nethome`, 0 = unknown: no shift).
    pub net_home: u8,
    /// Evaluation weights (keys `p1`..`p9`: pattern scores, `b1`..`b9`: threat bonuses); they
    /// take effect through [`set_process_tuning`] only, before the first board is built.
    pub eval: EvalWeights,
    /// Two-ply smoothing of the static value (knob `avg`, 0 = off, the default): a node's value
    /// becomes `((4 - avg) * own - avg * parent's) / 4`, where the parent's static value (the
    /// position before the opponent's last move, for the opponent) is kept by the search. Both
    /// carry the initiative of their side to move, so the average evens out the side-to-move
    /// swing between odd and even depths.
    pub eval_average: i32,
    /// Singular extension (knob `se`, 0 = off; by default [`SINGULAR_PER_RULE`], the rule's
    /// value, [`singular_depth_for`]): at a node of at least this depth whose hash
    /// move has a stored lower bound from at least `depth - 3`, the other moves are searched at
    /// half depth against that bound less `sem` per ply of depth; when all of them fail low,
    /// the hash move is the only good one and is searched one ply deeper.
    pub singular_depth: i32,
    /// The singular test's margin per ply of depth (knob `sem`).
    pub singular_margin: i32,
    /// Multi-cut (knob `semc`): when the singular test's search reaches beta without the hash
    /// move, the node fails high at once.
    pub singular_multicut: bool,
    /// Double singular extension (knob `sedx`, 0 = off): at a non-PV node whose singular test
    /// stays more than this many points below its bound, the hash move is searched two plies
    /// deeper instead of one.
    pub singular_double: i32,
    /// Negative singular extension (knob `sene`, plies, 0 = off): when the singular test
    /// reaches its bound (the hash move is not alone) and the hash move's stored bound is at
    /// least beta, the hash move is searched this many plies shallower. Level at 1 (+4 ± 14
    /// over 1 840 games in four rules at 300 ms; ninety-fourth and ninety-fifth sessions).
    pub singular_negative: i32,
    /// Correction history (knob `corr`, percent; 0 = off): the static value gains this share
    /// of the running mean of (search value - static value) at earlier nodes of this search
    /// with the same key (see [`Searcher::corr_slots`]).
    pub correction_pct: i32,
    /// The weight of one correction update per ply of depth, in 64ths (knob `corrw`).
    pub correction_rate: i32,
    /// Which correction tables are kept and summed (knob `corrk`, a bit mask): 1 by threat
    /// counts, 2 by threat counts with the counts of smaller threats, 4 by the last move's cell.
    pub correction_keys: u8,
    /// Whether the leaves' values are corrected too (knob `corrleaf`, 1), or only the static
    /// values of the pruning decisions (0).
    pub correction_leaves: bool,
    /// ProbCut (knob `pc`: margin in centi-stones, 0 = off): at a non-PV node of depth at least
    /// `pcdepth`, a search `pcr` plies shallower that reaches `beta + pc` ends the node.
    pub probcut: i32,
    /// The smallest depth ProbCut tries (knob `pcdepth`).
    pub probcut_depth: i32,
    /// How many plies shallower ProbCut's search is (knob `pcr`).
    pub probcut_reduction: i32,
    /// Whether ProbCut is tried only where the static value reaches beta (knob `pcs`).
    pub probcut_static: bool,
    /// Continuation history (knob `cont`: the largest ordering bonus, 0 = off): per colour,
    /// opponent's last move and cell within [`CONT_REACH`] steps of it, how often a move there
    /// refuted that last move (see [`Searcher::cont_slot`]); a move's ordering score gains its
    /// entry times `cont` / [`HISTORY_MAX`].
    pub cont: i32,
    /// Whether the moves searched before a cutoff lose continuation history (knob `contm`).
    pub cont_malus: bool,
}

impl Tuning {
    pub const DEFAULT: Tuning = Tuning {
        non_pv_move_limit: NON_PV_MOVE_LIMIT,
        limit_min_depth: 1,
        pv_move_limit: 0,
        move_count_cap: 0,
        tt_static: false,
        tt_mate: 0,
        razor: 0,
        razor_depth: 4,
        lmr_threats: LMR_THREATS_PER_RULE,
        lmr_from: 3,
        far_scale: FAR_SCALE,
        far_radius: 4,
        policy: 1,
        near_star: 0,
        order_attack_16ths: 0,
        lmp_base: LMP_BASE,
        leaf_vcf: false,
        leaf_vcf_below_beta: false,
        leaf_vcf_nodes: LEAF_VCF_NODES,
        lmr: true,
        lmr_log_div: LMR_LOG_DIV,
        lmr_log_div_long: LMR_LOG_DIV_LONG,
        long_search_ms: LONG_SEARCH_MS,
        initiative_16ths: crate::eval::INITIATIVE_16THS,
        vcf_min_depth: 0,
        root_safety: true,
        quick_win: false,
        stable_stop_pct: super::time::STABLE_STOP_PCT,
        next_iteration_pct: super::time::NEXT_ITERATION_PCT,
        turn_bound_pct: super::time::TURN_BOUND_PCT,
        drop_margin: super::time::DROP_MARGIN,
        drop_target_pct: super::time::DROP_TARGET_PCT,
        moves_to_go: super::time::MOVES_TO_GO,
        nmp: 0,
        nmp_depth: 3,
        rfp: RFP_MARGIN,
        rfp_depth: 3,
        fut: 0,
        fut_depth: 3,
        iir: 0,
        iid: 0,
        aspiration: ASPIRATION_WINDOW,
        history_malus: false,
        history_gravity: false,
        lmr_history_div: 0,
        killer_no_reduce: false,
        leaf_ext: 0,
        defence_ext: 0,
        defence_ext_pv: false,
        vct_min_depth: 0,
        vct_nodes: 500,
        vct_threes: 2,
        vct_depth: 8,
        root_vct_divisor: crate::search::ROOT_VCT_TIME_DIVISOR,
        root_vct_threes: crate::search::ROOT_VCT_THREES,
        root_vct_depth: crate::search::ROOT_VCT_DEPTH,
        root_vct_nodes: crate::search::ROOT_VCT_CLOCK_NODES,
        root_vct_rate: crate::search::ROOT_VCT_NODES_PER_MS,
        root_vct_wide: false,
        root_vct_pn: 0,
        swap2_renju_even: 75,
        swap2_renju_proposal_even: None,
        swap2_renju_wide: false,
        root_vcf_threat_nodes: crate::search::ROOT_VCF_THREAT_NODES,
        root_vcf_threat_moves: crate::search::ROOT_VCF_THREAT_MOVES,
        root_vcf_defence_nodes: 0,
        root_vcf_defence_exclude: true,
        root_vcf_defence_instant: true,
        root_vcf_defence_fours: true,
        safety_vct_nodes: 0,
        renju_fouls_defend: true,
        renju_foul_scores_zero: false,
        improving_rfp: false,
        improving_lmp: false,
        tt_ways: super::tt::WAYS,
        last_bonus: LAST_MOVE_BONUS,
        own_last_bonus: OWN_LAST_MOVE_BONUS,
        counter_bonus: COUNTER_MOVE_BONUS,
        cut_reduction: 0,
        policy_reduce: 0,
        policy_keep: 0,
        policy_prune: 0,
        order_bonus: ORDER_BONUS,
        indicators: crate::eval::INDICATORS,
        net_pct: crate::eval::NET_SHARE_PCT,
        net_shift: true,
        net_home: 0,
        eval: EvalWeights::DEFAULT,
        eval_average: 0,
        singular_depth: SINGULAR_PER_RULE,
        singular_margin: 10,
        singular_multicut: false,
        singular_double: 0,
        singular_negative: 0,
        correction_pct: 0,
        correction_rate: 4,
        correction_keys: 1,
        correction_leaves: true,
        probcut: 0,
        probcut_depth: 5,
        probcut_reduction: 4,
        probcut_static: false,
        cont: 0,
        cont_malus: false,
    };

    /// The knobs as a search under `rule` uses them: the rule-dependent defaults (`far=2`,
    /// `ordatk=0`, `lmrq=4`, `se` unset) replaced by their values for `rule`.
    pub fn for_rule(mut self, rule: Rule) -> Tuning {
        if self.far_scale >= 2 {
            self.far_scale = (rule != Rule::Renju) as u8;
        }
        if self.order_attack_16ths == 0 {
            self.order_attack_16ths = order_attack_16ths(rule);
        }
        if self.lmr_threats == LMR_THREATS_PER_RULE {
            self.lmr_threats = lmr_threats_for(rule);
        }
        if self.singular_depth == SINGULAR_PER_RULE {
            self.singular_depth = singular_depth_for(rule);
        }
        self
    }

    /// Reads `key=value` pairs separated by commas (`limit`, `vcf`, `lmr`, `init`, `qwin`, ...)
    /// over the defaults; `None` on an unknown key or bad number.
    pub fn parse(text: &str) -> Option<Tuning> {
        let mut t = Tuning::DEFAULT;
        for kv in text.split(',').filter(|s| !s.is_empty()) {
            let (k, v) = kv.split_once('=')?;
            let n: i64 = v.trim().parse().ok()?;
            match k.trim() {
                "limit" => t.non_pv_move_limit = n.max(0) as usize,
                "limitdepth" => t.limit_min_depth = n as i32,
                "pvlimit" => t.pv_move_limit = n.max(0) as usize,
                "mcp" => t.move_count_cap = n.clamp(0, 1000) as usize,
                "ttse" => t.tt_static = n != 0,
                "ttmate" => t.tt_mate = n.clamp(0, 2) as u8,
                "razor" => t.razor = n.clamp(0, 100_000) as i32,
                "razordepth" => t.razor_depth = n.clamp(1, 100) as i32,
                "lmrq" => t.lmr_threats = n.clamp(0, LMR_THREATS_PER_RULE as i64) as u8,
                "lmrfrom" => t.lmr_from = n.clamp(1, 1000) as usize,
                "far" => t.far_scale = n.clamp(0, 2) as u8,
                "farr" => t.far_radius = n.clamp(1, 20) as i32,
                "pol" => t.policy = n.clamp(0, 1) as u8,
                "star" => t.near_star = n.clamp(0, 2) as u8,
                "ordatk" => t.order_attack_16ths = n.clamp(0, 1000) as i32,
                "vcf" => t.leaf_vcf = n != 0,
                "vcfb" => t.leaf_vcf_below_beta = n != 0,
                "vcfnodes" => t.leaf_vcf_nodes = n.max(1) as u64,
                "lmr" => t.lmr = n != 0,
                "lmp" => t.lmp_base = n.clamp(0, 1000) as usize,
                "lmrlog" => t.lmr_log_div = n.clamp(0, 1000) as i32,
                "lmrlong" => t.lmr_log_div_long = n.clamp(0, 1000) as i32,
                "longms" => t.long_search_ms = n.clamp(0, 1 << 40) as u64,
                "init" => t.initiative_16ths = n,
                "vcfdepth" => t.vcf_min_depth = n as i32,
                "safety" => t.root_safety = n != 0,
                "qwin" => t.quick_win = n != 0,
                "stablepct" => t.stable_stop_pct = n.clamp(0, 100) as u64,
                "nextpct" => t.next_iteration_pct = n.clamp(0, 100) as u64,
                "turnpct" => t.turn_bound_pct = n.clamp(0, 100) as u64,
                "dropext" => t.drop_margin = n.clamp(0, 1_000_000) as i32,
                "droppct" => t.drop_target_pct = n.clamp(100, 1000) as u64,
                "mtg" => t.moves_to_go = n.clamp(1, 1000) as u64,
                "nmp" => t.nmp = n.clamp(0, 20) as i32,
                "nmpdepth" => t.nmp_depth = n.clamp(1, 100) as i32,
                "rfp" => t.rfp = n.clamp(0, 100_000) as i32,
                "rfpdepth" => t.rfp_depth = n.clamp(1, 100) as i32,
                "fut" => t.fut = n.clamp(0, 100_000) as i32,
                "futdepth" => t.fut_depth = n.clamp(1, 100) as i32,
                "iir" => t.iir = n.clamp(0, 100) as i32,
                "iid" => t.iid = n.clamp(0, 100) as i32,
                "asp" => t.aspiration = n.clamp(1, 10_000) as i32,
                "hmal" => t.history_malus = n != 0,
                "hgrav" => t.history_gravity = n != 0,
                "lmrh" => t.lmr_history_div = n.clamp(0, 100_000) as i32,
                "kr" => t.killer_no_reduce = n != 0,
                "vctd" => t.vct_min_depth = n.clamp(0, 100) as i32,
                "vctn" => t.vct_nodes = n.max(1) as u64,
                "vctt" => t.vct_threes = n.clamp(1, 7) as u32,
                "rvct" => t.root_vct_divisor = n.clamp(0, 1000) as u64,
                "rvctt" => t.root_vct_threes = n.clamp(1, 7) as u32,
                "rvctdepth" => t.root_vct_depth = n.clamp(1, 30) as u32,
                "rvctn" => t.root_vct_nodes = n.clamp(1, 1_000_000_000) as u64,
                "rvctrate" => t.root_vct_rate = n.clamp(1, 1_000_000) as u64,
                "rvctwide" => t.root_vct_wide = n != 0,
                "rvctpn" => t.root_vct_pn = n.clamp(0, 100) as u32,
                "s2even" => t.swap2_renju_even = n.clamp(-10_000, 10_000) as i32,
                "s2wide" => t.swap2_renju_wide = n != 0,
                "s2prop" => t.swap2_renju_proposal_even = Some(n.clamp(-10_000, 10_000) as i32),
                "vcft" => t.root_vcf_threat_nodes = n.clamp(0, 1_000_000_000) as u64,
                "vcftn" => t.root_vcf_threat_moves = n.clamp(1, 1000) as usize,
                "vcfdef" => t.root_vcf_defence_nodes = n.clamp(0, 1 << 40) as u64,
                "vcfdefx" => t.root_vcf_defence_exclude = n != 0,
                "vcfdefi" => t.root_vcf_defence_instant = n != 0,
                "vcfdef4" => t.root_vcf_defence_fours = n != 0,
                "svct" => t.safety_vct_nodes = n.clamp(0, 100_000_000) as u64,
                "rfoul" => t.renju_fouls_defend = n != 0,
                "rfz" => t.renju_foul_scores_zero = n != 0,
                "vctdepth" => t.vct_depth = n.clamp(1, 30) as u32,
                "imprfp" => t.improving_rfp = n != 0,
                "implmp" => t.improving_lmp = n != 0,
                "ttways" => t.tt_ways = n.clamp(1, 8) as usize,
                "lext" => t.leaf_ext = n.clamp(0, 64) as i32,
                "dext" => t.defence_ext = n.clamp(0, 64) as i32,
                "dextpv" => t.defence_ext_pv = n != 0,
                "lastb" => t.last_bonus = n.clamp(-10_000, 10_000) as i32,
                "ownb" => t.own_last_bonus = n.clamp(-10_000, 10_000) as i32,
                "cmb" => t.counter_bonus = n.clamp(-10_000, 10_000) as i32,
                "cutr" => t.cut_reduction = n.clamp(0, 10) as i32,
                "polr" => t.policy_reduce = n.clamp(0, 1_000_000) as i32,
                "polrl" => t.policy_keep = n.clamp(0, 1_000_000) as i32,
                "polp" => t.policy_prune = n.clamp(0, 1_000_000) as i32,
                "netpct" => t.net_pct = n.clamp(0, 100) as i32,
                "netshift" => t.net_shift = n != 0,
                "nethome" => t.net_home = n.clamp(0, 64) as u8,
                "avg" => t.eval_average = n.clamp(0, 2) as i32,
                "se" => t.singular_depth = n.clamp(SINGULAR_PER_RULE as i64, 100) as i32,
                "sem" => t.singular_margin = n.clamp(0, 10_000) as i32,
                "semc" => t.singular_multicut = n != 0,
                "sedx" => t.singular_double = n.clamp(0, 100_000) as i32,
                "sene" => t.singular_negative = n.clamp(0, 3) as i32,
                "corr" => t.correction_pct = n.clamp(0, 200) as i32,
                "corrw" => t.correction_rate = n.clamp(1, 64) as i32,
                "corrk" => t.correction_keys = n.clamp(1, 7) as u8,
                "corrleaf" => t.correction_leaves = n != 0,
                "pc" => t.probcut = n.clamp(0, 100_000) as i32,
                "pcdepth" => t.probcut_depth = n.clamp(2, 100) as i32,
                "pcr" => t.probcut_reduction = n.clamp(1, 10) as i32,
                "pcs" => t.probcut_static = n != 0,
                "cont" => t.cont = n.clamp(0, 10_000) as i32,
                "contm" => t.cont_malus = n != 0,
                k => {
                    if let Some(j) = k.strip_prefix('i') {
                        let j: usize = j.parse().ok().filter(|j| (1..=16).contains(j))?;
                        t.indicators[j - 1] = n.clamp(-10_000, 10_000) as i32;
                        continue;
                    }
                    let (table, j) = match k.split_at(1) {
                        ("p", j) => (&mut t.eval.pattern, j),
                        ("b", j) => (&mut t.eval.bonus, j),
                        ("o", j) => (&mut t.order_bonus, j),
                        _ => return None,
                    };
                    let j: usize = j.parse().ok().filter(|j| (1..=9).contains(j))?;
                    table[j] = n.clamp(0, 10_000) as i32;
                }
            }
        }
        Some(t)
    }
}

/// Knobs every thread starts with, when a developer overrides the defaults for the whole
/// process (`RENSA_TUNING`, read by `pbrain-rensa` at start-up).
static PROCESS_TUNING: std::sync::OnceLock<Tuning> = std::sync::OnceLock::new();

thread_local! {
    static TUNING: std::cell::Cell<Tuning> =
        std::cell::Cell::new(PROCESS_TUNING.get().copied().unwrap_or(Tuning::DEFAULT));
}

/// Sets the knobs of this thread and of every thread that reads its knobs afterwards. Only the
/// first call has an effect; returns whether it did. For A/B matches
/// between two copies of one binary; production code never calls it.
pub fn set_process_tuning(t: Tuning) -> bool {
    let first = PROCESS_TUNING.set(t).is_ok();
    if first {
        set_tuning(t);
        if t.eval != EvalWeights::DEFAULT && !crate::board::pattern::set_weights(t.eval) {
            log::warn!("evaluation weights set after the first board: ignored");
        }
        if t.renju_foul_scores_zero && !crate::board::pattern::set_renju_foul_scores(true) {
            log::warn!("renju foul scores set after the first renju board: ignored");
        }
    }
    first
}

/// Sets the knobs for searches started on this thread (experiments only).
pub fn set_tuning(t: Tuning) {
    TUNING.with(|c| c.set(t));
}

/// The knobs in force on this thread.
pub fn tuning() -> Tuning {
    TUNING.with(|c| c.get())
}

/// A generated move with its ordering score, as one integer: the score in the high half and
/// the complemented cell index in the low half, so that a larger value means a higher score,
/// then a lower index (cell indices fit in 32 bits). The move lists hold these rather than
/// (cell, score) pairs: the lazy selection ([`pick_best`]), which scans the rest of the list
/// for each move searched, then compares entries as they are, at half the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Ranked(i64);

impl Ranked {
    #[inline(always)]
    fn new(i: Idx, s: i32) -> Ranked {
        debug_assert!(i <= u32::MAX as usize);
        Ranked(((s as i64) << 32) | !(i as u32) as i64)
    }

    /// The move's cell.
    #[inline(always)]
    fn cell(self) -> Idx {
        !(self.0 as u32) as Idx
    }

    /// The move's ordering score.
    #[inline(always)]
    fn score(self) -> i32 {
        (self.0 >> 32) as i32
    }
}

/// Moves the best remaining move (highest score, then lowest index) to position `n`.
///
/// Each move is compared as one integer ([`Ranked`]), so that the scan keeps its best in
/// registers with conditional moves instead of branching on the unpredictable comparisons.
#[inline]
fn pick_best(moves: &mut [Ranked], n: usize) {
    let mut best = n;
    let mut best_key = moves[n];
    for (j, &k) in moves.iter().enumerate().skip(n + 1) {
        if k > best_key {
            (best, best_key) = (j, k);
        }
    }
    moves.swap(n, best);
}

/// The first bit of [`axis_masks`]' near-move bits (bits `0..4` are the far bits).
const NEAR_BIT: u8 = 1 << 4;

/// Per board column (or row, as `axis` picks the coordinate) in `range` (the others stay 0),
/// the move generator's distance tests along that coordinate: bit `k` (`0..4`) when it is more
/// than `far_radius` from that of `recent[k]`, bit `NEAR_BIT << j` when it is within two of
/// that of the near-move bonus `near[j]` (column, row, bonus).
///
/// Built by intervals: the far bits are set on the whole range and cleared within
/// `far_radius` of each move, the near bits set within two of each bonus move (a few short
/// runs instead of six distance tests per column).
fn axis_masks(
    range: std::ops::RangeInclusive<i32>,
    recent: &[(i32, i32); 4],
    near: &[(i32, i32, i32); 2],
    far_radius: i32,
    axis: impl Fn((i32, i32)) -> i32,
) -> [u8; MAX_SIDE] {
    let mut masks = [0u8; MAX_SIDE];
    let (lo, hi) = (*range.start(), *range.end());
    // The columns of `range` within `r` of `v`, as indices of `masks` (empty when none).
    let around = |v: i32, r: i32| {
        let (a, b) = (lo.max(v.saturating_sub(r)), hi.min(v.saturating_add(r)));
        a.max(0) as usize..(b + 1).max(a.max(0)) as usize
    };
    for m in &mut masks[around(lo, hi - lo)] {
        *m = 0b1111;
    }
    for (k, &r) in recent.iter().enumerate() {
        for m in &mut masks[around(axis(r), far_radius)] {
            *m &= !(1 << k);
        }
    }
    for (j, &(x, y, _)) in near.iter().enumerate() {
        for m in &mut masks[around(axis((x, y)), 2)] {
            *m |= NEAR_BIT << j;
        }
    }
    masks
}

/// Bits of one distance in an [`axis_distances`] entry.
const DIST_BITS: u8 = 4;
/// The low distance of an [`axis_distances`] entry.
const DIST_MASK: u8 = (1 << DIST_BITS) - 1;

/// Per board column (or row, as `axis` picks the coordinate) in `range` (the others stay 0),
/// its distance along that coordinate to the move `a` (low [`DIST_BITS`]) and to the move `b`
/// (the bits above), each capped at the policy's [`FAR`](super::policy::FAR), which a missing
/// move also gives: the larger of a cell's column and row entries is its policy distance.
fn axis_distances(
    range: std::ops::RangeInclusive<i32>,
    a: Option<(i32, i32)>,
    b: Option<(i32, i32)>,
    axis: impl Fn((i32, i32)) -> i32,
) -> [u8; MAX_SIDE] {
    const FAR: i32 = super::policy::FAR as i32;
    const _: () = assert!(FAR <= DIST_MASK as i32);
    let mut dists = [0u8; MAX_SIDE];
    let first = *range.start();
    let len = range.count();
    let dist =
        |m: Option<(i32, i32)>, v: i32| m.map_or(FAR, |m| (v - axis(m)).abs().min(FAR)) as u8;
    for (v, d) in (first..).zip(dists.iter_mut().skip(first as usize).take(len)) {
        *d = dist(a, v) | dist(b, v) << DIST_BITS;
    }
    dists
}

/// The last move's cell, column and row, as [`Searcher::cont_slot`] reads it.
type ContLast = (Idx, i32, i32);

/// The per-node constants of the move generator's scoring loop ([`Scoring::score`]).
struct Scoring<'a> {
    /// Only cells where either side has a four or more are kept ([`answers_threat`]).
    must_defend: bool,
    /// The move-ordering policy's tables for the side to move, if there is a policy.
    policy: Option<&'a Tables>,
    /// The policy's line-window scores, where it has them (looked up once per node).
    windows: Option<&'a [i32; WINDOWS]>,
    /// Per column and row: [`axis_distances`] with a policy, else [`axis_masks`].
    cols: [u8; MAX_SIDE],
    rows: [u8; MAX_SIDE],
    /// The ordering bonus per threat class (knob `ob`).
    threat_bonus: [i32; 10],
    /// The side to move's cell scores' weight, in 16ths (knob `ordatk`).
    attack: i32,
    /// Whether cells far from the recent moves have their scores scaled down (knob `far`).
    far_scale: bool,
    /// The near-move bonuses by the two near bits of [`axis_masks`].
    near_add: [i32; 4],
    /// Per cell and colour index: the history's share and the killer and counter-move bonuses.
    bonus: &'a [[i32; 2]],
    /// (Knob `cont`) the last move (see [`Searcher::cont_slot`]), the continuation history and
    /// its weight.
    cont: Option<(ContLast, &'a [i32], i32)>,
    /// The hash move, scored `i32::MAX` (`usize::MAX` for none).
    tt: Idx,
}

impl Scoring<'_> {
    /// Scores the near cells `cells` (see [`FastBoard::near_empty_cells`]) for the side to move
    /// of colour index `C` into `out`, those kept first; returns how many it kept. The colour
    /// is a constant so that the board's per-colour fields are read at fixed offsets.
    #[inline(never)]
    fn score<const C: usize>(&self, b: &FastBoard, cells: &[u32], out: &mut [Ranked]) -> usize {
        let me = Color::of_ply(C);
        let opp = me.opponent();
        let mut k = 0;
        for &e in cells {
            let (i, x, y) = unpack_near(e);
            let tm = b.threat(i, me);
            let to = b.threat(i, opp);
            if !answers_threat(tm, to, self.must_defend) {
                continue;
            }
            // (A column or row is below `MAX_SIDE`, a power of two: the mask is no change.)
            let (col, row) = (
                self.cols[x as usize & (MAX_SIDE - 1)],
                self.rows[y as usize & (MAX_SIDE - 1)],
            );
            let mut s;
            // With a move-ordering policy (any rule on 15x15, 20x20 freestyle, or
            // `RENSA_POLICY`), its score takes the place of the cell scores, the distance
            // scaling and the near-move bonuses.
            if let Some(pol) = self.policy {
                s = pol.score(
                    [b.combo_packed(i, me), b.combo_packed(i, opp)],
                    [tm as u8, to as u8],
                    [
                        (col & DIST_MASK).max(row & DIST_MASK) as usize,
                        (col >> DIST_BITS).max(row >> DIST_BITS) as usize,
                    ],
                );
                if let Some(w) = self.windows {
                    for d in 0..4 {
                        s += w[window_of(b.line_key(i, d))];
                    }
                }
            } else {
                let ob = &self.threat_bonus;
                s = (b.cell_score(i, me) + ob[tm as usize]) * self.attack / 16
                    + b.cell_score(i, opp)
                    + ob[to as usize];
                let (far, close) = (col | row, col & row);
                if self.far_scale && far & 0b11 == 0b11 {
                    // Divisions by constants: shifts, where a divisor chosen at run time needed
                    // a division instruction.
                    s = if far & 0b1111 == 0b1111 { s / 4 } else { s / 2 };
                }
                s += self.near_add[((close / NEAR_BIT) & 3) as usize];
            }
            // The history's share with the killer and counter-move bonuses.
            s += self.bonus[i][C];
            if let Some((last, cont, weight)) = self.cont {
                if let Some(slot) = Searcher::cont_slot(last, (x, y), C) {
                    s += cont[slot] * weight / HISTORY_MAX;
                }
            }
            if i == self.tt {
                s = i32::MAX;
            }
            out[k] = Ranked::new(i, s);
            k += 1;
        }
        k
    }
}

/// The move generator's threat filter: when the opponent can make a straight four
/// (`must_defend`), only cells where either side has a four or more (`tm`, `to`) stay.
#[inline(always)]
fn answers_threat(tm: Threat, to: Threat, must_defend: bool) -> bool {
    !must_defend || tm >= Threat::Block4 || to >= Threat::Block4
}

/// Whether the empty cell `i` is a foul for renju black (the cheap pattern test first).
#[inline]
fn is_foul(b: &mut FastBoard, i: Idx) -> bool {
    b.maybe_forbidden(i) && b.is_forbidden(i)
}

/// Whether `c` may legally play some cell where it has threat `t` (renju fouls excluded).
fn has_legal(b: &mut FastBoard, c: Color, t: Threat) -> bool {
    if b.rule() != Rule::Renju || c == Color::White {
        return true;
    }
    // `cells_with` by hand: its iterator would borrow the board that `is_forbidden` changes.
    for i in b.area(4) {
        if b.is_empty(i) && b.threat(i, c) == t && !b.is_forbidden(i) {
            return true;
        }
    }
    false
}

/// A forced win of the side to move that its threat classes show, in plies to the five, when the
/// opponent threatens no five (not for caro, where a five blocked at both ends does not win):
/// * 3: a straight four or a double four (renju black: one that is not a foul);
/// * 5, with `five_ply` and when the opponent has no four to answer with: a four-three (the
///   forced block of the four cannot touch the three's line) or a double three (one stone blocks
///   only one of the threes). Renju black's double three is a foul, so it does not count.
pub fn quick_win(b: &mut FastBoard, five_ply: bool) -> Option<i32> {
    let me = b.side_to_move();
    let opp = me.opponent();
    if b.count(me, Threat::Flex4) > 0 && has_legal(b, me, Threat::Flex4) {
        return Some(3);
    }
    let opp_has_four = [Threat::Block4, Threat::Four3, Threat::Flex4, Threat::Five]
        .iter()
        .any(|&t| b.count(opp, t) > 0);
    if !five_ply || opp_has_four {
        return None;
    }
    let renju_black = b.rule() == Rule::Renju && me == Color::Black;
    if (b.count(me, Threat::Four3) > 0 && has_legal(b, me, Threat::Four3))
        || (!renju_black && b.count(me, Threat::Three3) > 0)
    {
        return Some(5);
    }
    None
}

/// What [`Searcher::exclude_vcf_losses`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VcfDefence {
    /// The opponent threatens no VCF (or a five, which the move list answers).
    NoThreat,
    /// This many root moves did not stop the opponent's VCF and were excluded.
    Excluded(usize),
    /// No root move checked stops it; none was excluded.
    Undefended,
}

/// What stops a search.
pub struct Control<'a> {
    pub stop: &'a AtomicBool,
    pub start: Instant,
    /// Abort at this many ms after `start`.
    pub hard_ms: u64,
    pub max_nodes: u64,
}

/// One search's working state.
pub struct Searcher<'a> {
    pub b: FastBoard,
    tt: &'a Tt,
    vcf_cache: &'a VcfCache,
    ctl: Control<'a>,
    pub nodes: u64,
    pub seldepth: i32,
    pub aborted: bool,
    /// In the current iteration: the value of the last root move that raised alpha.
    root_improved: Option<i32>,
    next_check: u64,
    killers: Vec<[Idx; 2]>,
    history: Vec<[i32; 2]>,
    /// Per colour and opponent's last move: the move that last refuted it.
    counter: Vec<[Idx; 2]>,
    /// Per cell and colour index: the move generator's share of `history` there (see
    /// [`history_term`]), kept with each change of `history` so that scoring a cell reads one
    /// number; while the generator scores moves, plus the killer and counter-move bonuses.
    order_bonus: Vec<[i32; 2]>,
    pv: Vec<Vec<Idx>>,
    buffers: Vec<Vec<Ranked>>,
    /// The evaluation's indicator terms in force (none in caro or when all are zero).
    indicators: Option<[i32; 16]>,
    /// The evaluation network of the rule, if it has one (see [`Tuning::net_pct`]).
    net: Option<(&'static crate::eval::Net, crate::eval::SizeShift)>,
    /// The experimental cell network, when one is installed ([`crate::cellnet`]).
    cellnet: Option<&'static crate::cellnet::CellNet>,
    /// The interior VCT's failure cache (allocated on first use).
    vct_cache: Option<Box<VctCache>>,
    /// Per ply: the static value there (`None` where the node did not compute it).
    evals: Vec<Option<i32>>,
    /// Per ply: the move made there was a null move (no two in a row).
    null_at: Vec<bool>,
    /// (Knob `dext`) the defence extensions taken on the path to each ply.
    ext_used: Vec<i32>,
    /// Per ply: the hash move a singular test searches without (see [`Tuning::singular_depth`]).
    excluded: Vec<Option<Idx>>,
    /// Root moves not to consider (multi-PV).
    pub root_exclude: Vec<Idx>,
    /// The depth of the current iteration.
    root_depth: i32,
    /// Per node on the stack that searched its hash move before generating its other moves and
    /// has not generated them yet: the length of `history_log` when it started.
    staged: Vec<usize>,
    /// History changes (cell, colour, old, new) made while some node is in `staged`; a colour
    /// of 2 is a continuation-history slot in place of a cell.
    history_log: Vec<(u32, u8, i32, i32)>,
    /// The continuation history (knob `cont`; empty when off), see [`Searcher::cont_slot`].
    cont: Vec<i32>,
    /// Scratch list of the move generator (see [`FastBoard::near_empty_cells`]).
    near_cells: NearList,
    /// The move-ordering policy, if any (see [`Tuning::policy`]).
    policy: Option<&'static super::policy::Policy>,
    /// The correction history (knob `corr`; empty when off): per [`Searcher::corr_slots`], the
    /// running mean of (search value - static value) in [`CORR_GRAIN`]ths.
    corr: Vec<i32>,
    tuning: Tuning,
}

/// Units of a correction-history entry per unit of value.
const CORR_GRAIN: i32 = 32;
/// The largest correction, in units of value.
const CORR_MAX: i32 = 300;
/// Entries of one correction table: both colours, 14 bits of threat counts (or any cell).
const CORR_LEN: usize = 1 << 15;
/// Correction tables (see [`Tuning::correction_keys`]).
const CORR_TABLES: usize = 3;

/// The move generator's ordering bonus for a history entry `h` (knob `grav` picks the form).
#[inline(always)]
fn history_term(h: i32, gravity: bool) -> i32 {
    if gravity {
        h / 32
    } else {
        h.clamp(-1000, 1000) / 8
    }
}

/// Sets the entry of `history` or `cont` a history-log entry's cell and colour name (colour 2:
/// the continuation-history slot `i`) to `v`, and a history entry's ordering bonus with it.
fn set_logged(
    history: &mut [[i32; 2]],
    order_bonus: &mut [[i32; 2]],
    cont: &mut [i32],
    (i, c, v): (u32, u8, i32),
    gravity: bool,
) {
    let (i, c) = (i as usize, c as usize);
    match c {
        2 => cont[i] = v,
        _ => {
            history[i][c] = v;
            order_bonus[i][c] = history_term(v, gravity);
        }
    }
}

/// Result of one completed iteration.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: i32,
    pub value: i32,
    pub pv: Vec<Idx>,
    /// The search was stopped inside this iteration; `pv` starts with a root move that completed
    /// and improved on the others searched.
    pub partial: bool,
}

impl<'a> Searcher<'a> {
    pub fn new(
        mut b: FastBoard,
        tt: &'a Tt,
        vcf_cache: &'a VcfCache,
        ctl: Control<'a>,
    ) -> Searcher<'a> {
        let cells = b.cell_count();
        let t = tuning().for_rule(b.rule());
        b.set_near_star(t.near_star != 0);
        let indicators = crate::eval::indicators_for(b.rule(), &t.indicators);
        let net = crate::eval::net_with_shift(
            &b,
            Some(t.net_home as usize).filter(|&h| h > 0),
            t.net_shift,
        );
        let policy = (t.policy != 0)
            .then(|| super::policy::policy_for(b.rule(), b.width(), b.height()))
            .flatten();
        Searcher {
            b,
            tt,
            vcf_cache,
            ctl,
            nodes: 0,
            seldepth: 0,
            aborted: false,
            root_improved: None,
            next_check: CHECK_EVERY_NODES,
            killers: vec![[usize::MAX; 2]; MAX_PLY + 1],
            history: vec![[0; 2]; cells],
            counter: vec![[usize::MAX; 2]; cells],
            order_bonus: vec![[0; 2]; cells],
            pv: vec![Vec::new(); MAX_PLY + 1],
            buffers: vec![Vec::new(); MAX_PLY + 1],
            null_at: vec![false; MAX_PLY + 1],
            ext_used: vec![0; MAX_PLY + 1],
            excluded: vec![None; MAX_PLY + 1],
            evals: vec![None; MAX_PLY + 1],
            vct_cache: None,
            root_exclude: Vec::new(),
            root_depth: 0,
            staged: Vec::with_capacity(MAX_PLY + 1),
            history_log: Vec::new(),
            cont: if t.cont > 0 {
                vec![0; cells * CONT_SQUARE * 2]
            } else {
                Vec::new()
            },
            near_cells: near_list(),
            policy,
            indicators,
            cellnet: crate::cellnet::cellnet(),
            net,
            corr: if t.correction_pct > 0 {
                vec![0; CORR_LEN * CORR_TABLES]
            } else {
                Vec::new()
            },
            tuning: t,
        }
    }

    /// Moves the abort time (ms after the start), e.g. to give the steps after the main search
    /// the rest of the budget.
    pub fn set_hard_ms(&mut self, hard_ms: u64) {
        self.ctl.hard_ms = hard_ms;
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.ctl.start.elapsed().as_millis() as u64
    }

    fn check_limits(&mut self) {
        if self.ctl.stop.load(Ordering::Relaxed)
            || self.nodes >= self.ctl.max_nodes
            || self.elapsed_ms() >= self.ctl.hard_ms
        {
            self.aborted = true;
        }
    }

    /// A VCF for the side to move at the root within `depth` attacker moves and `max_nodes`; it
    /// stops `max_ms` ms after the search start (or at the hard limit, if sooner).
    pub fn root_vcf(&mut self, depth: u32, max_nodes: u64, max_ms: u64) -> Option<(u32, Vec<Idx>)> {
        let ms = self.ctl.hard_ms.min(max_ms).min(1 << 40);
        let deadline = self
            .ctl
            .start
            .checked_add(std::time::Duration::from_millis(ms));
        let mut vcf = Vcf {
            cache: self.vcf_cache,
            nodes: 0,
            node_limit: max_nodes.min(self.ctl.max_nodes),
            deadline: deadline.map(|d| (d, self.ctl.stop)),
        };
        let mut line = Vec::new();
        let r = vcf.solve(&mut self.b, depth, &mut line);
        self.nodes += vcf.nodes;
        r.map(|n| (n, line))
    }

    /// As [`Searcher::root_vcf`], then shortened: the solver is asked again for a win with
    /// fewer fours than the last one it found, until it finds none, so that the line (and the
    /// "win in N" it gives) is the shortest VCF while the node cap and the clock allow; when
    /// they end it first, the shortest found so far stands. The first call ends `max_ms` after
    /// the search's start, the shortening calls (a win in hand) `shorten_ms` after it. The
    /// failures the solver caches per depth serve the shallower calls. All the calls together
    /// use at most `max_nodes` nodes.
    pub fn root_vcf_shortest(
        &mut self,
        depth: u32,
        max_nodes: u64,
        max_ms: u64,
        shorten_ms: u64,
    ) -> Option<(u32, Vec<Idx>)> {
        let first = self.nodes;
        let mut best = self.root_vcf(depth, max_nodes, max_ms)?;
        loop {
            // A win of `n` plies takes (n - 1) / 2 fours before the five.
            let fours = (best.0 - 1) / 2;
            let left = max_nodes.saturating_sub(self.nodes - first);
            if fours < 2 || left == 0 {
                return Some(best);
            }
            match self.root_vcf(fours - 1, left, shorten_ms) {
                Some(shorter) => best = shorter,
                None => return Some(best),
            }
        }
    }

    /// When the opponent threatens a VCF (it would have one if it moved now), excludes from the
    /// search the root moves `moves` that do not stop it, as long as one of them does; when none
    /// does, nothing is excluded. A quiet move stops it when the opponent has no VCF after it; a
    /// four (which the opponent must block first) when after each block the opponent no longer
    /// threatens one, so a four that only delays is left out with the losing moves (with the
    /// knob `vcfdef4=0` fours are skipped: neither left out nor counted as stopping it). Each
    /// solver call gets `nodes_each` nodes, and one that finds nothing counts as no VCF; checks
    /// end at `max_ms` after the search's start (moves not checked by then stay in).
    pub fn exclude_vcf_losses(
        &mut self,
        moves: &[Idx],
        nodes_each: u64,
        max_ms: u64,
    ) -> VcfDefence {
        let me = self.b.side_to_move();
        if self.b.count(me.opponent(), Threat::Five) > 0
            || !self.threatened_by_vcf(nodes_each, max_ms)
        {
            return VcfDefence::NoThreat;
        }
        let mut losing = Vec::new();
        let mut defended = false;
        for &m in moves {
            if self.root_exclude.contains(&m) {
                continue;
            }
            if self.elapsed_ms() >= max_ms {
                // Unchecked moves stay in.
                defended = true;
                break;
            }
            if !self.tuning.root_vcf_defence_fours && self.b.threat(m, me) >= Threat::Block4 {
                continue;
            }
            if self.stops_vcf(m, nodes_each, max_ms) {
                defended = true;
            } else {
                losing.push(m);
            }
        }
        if !defended {
            return VcfDefence::Undefended;
        }
        if !self.tuning.root_vcf_defence_exclude {
            return VcfDefence::Excluded(0);
        }
        self.root_exclude.extend_from_slice(&losing);
        VcfDefence::Excluded(losing.len())
    }

    /// Whether the side to move has a VCF (within `nodes`, stopping `max_ms` after the start).
    fn has_vcf(&mut self, nodes: u64, max_ms: u64) -> bool {
        self.root_vcf(crate::search::ROOT_VCF_DEPTH, nodes, max_ms)
            .is_some()
    }

    /// Whether the opponent would have a VCF if the side to move passed.
    fn threatened_by_vcf(&mut self, nodes: u64, max_ms: u64) -> bool {
        self.b.make_null();
        let threat = self.has_vcf(nodes, max_ms);
        self.b.unmake_null();
        threat
    }

    /// Whether the root move `m` stops the opponent's VCF threat (see
    /// [`Searcher::exclude_vcf_losses`]).
    pub fn stops_vcf(&mut self, m: Idx, nodes: u64, max_ms: u64) -> bool {
        let me = self.b.side_to_move();
        self.b.make(m);
        let mut fives = Vec::new();
        self.b.five_points_near(m, me, &mut fives);
        let stops = if fives.is_empty() {
            !self.has_vcf(nodes, max_ms)
        } else {
            let mut blocks = Vec::new();
            self.b.five_defences(&fives, &mut blocks);
            blocks.retain(|&d| self.b.is_legal(d));
            blocks.into_iter().all(|d| {
                self.b.make(d);
                let still = self.threatened_by_vcf(nodes, max_ms);
                self.b.unmake();
                !still
            })
        };
        self.b.unmake();
        stops
    }

    /// Whether the opponent has a VCF (within `max_nodes`) after the root move `m`.
    pub fn allows_vcf(&mut self, m: Idx, max_nodes: u64) -> bool {
        self.b.make(m);
        let r = self.has_vcf(max_nodes, u64::MAX);
        self.b.unmake();
        r
    }

    /// The knobs this search runs with.
    pub fn tuning(&self) -> Tuning {
        self.tuning
    }

    /// Switches to the reductions of a long search (see [`LMR_LOG_DIV_LONG`]) when the search's
    /// hard time limit is `hard_ms` (`u64::MAX`: none). Helper threads take the knobs from
    /// [`Searcher::tuning`], so they follow.
    pub fn set_search_length(&mut self, hard_ms: u64) {
        let t = &mut self.tuning;
        if t.lmr_log_div_long > 0 && hard_ms >= t.long_search_ms {
            t.lmr_log_div = t.lmr_log_div_long;
        }
    }

    /// The root moves in search order (empty only when no legal move is near the stones).
    pub fn root_moves(&mut self) -> Vec<Idx> {
        let me = self.b.side_to_move();
        let opp_fives = self.b.count(me.opponent(), Threat::Five);
        let mut v = Vec::new();
        self.generate(&mut v, opp_fives, 0, None, true);
        v.sort_unstable_by(|a, b| b.cmp(a));
        v.into_iter()
            .map(Ranked::cell)
            .filter(|m| !self.root_exclude.contains(m))
            .collect()
    }

    /// Searches to `depth` with an aspiration window around `prev`.
    pub fn iterate(&mut self, depth: i32, prev: Option<i32>) -> Option<Iteration> {
        let first = self.tuning.aspiration;
        let mut window = first;
        let (mut alpha, mut beta) = match prev {
            Some(v) if depth >= 4 && v.abs() < Value::MATE_BOUND.0 => (v - window, v + window),
            _ => (-INF, INF),
        };
        self.root_improved = None;
        self.root_depth = depth;
        loop {
            let v = self.search(depth, alpha, beta, 0, false);
            if self.aborted {
                // A root move that completed and raised alpha is at least as good as the last
                // iteration's choice: keep it.
                return self.root_improved.map(|value| Iteration {
                    depth,
                    value,
                    pv: self.pv[0].clone(),
                    partial: true,
                });
            }
            if v <= alpha && alpha > -INF {
                alpha = (alpha - window).max(-INF);
                window *= 3;
            } else if v >= beta && beta < INF {
                beta = (beta + window).min(INF);
                window *= 3;
            } else {
                return Some(Iteration {
                    depth,
                    value: v,
                    pv: self.pv[0].clone(),
                    partial: false,
                });
            }
            if window > 4 * first * 9 {
                alpha = -INF;
                beta = INF;
            }
        }
    }

    /// `cut` marks an expected cut node: a non-PV node whose parent expects it to fail high
    /// (the knob `cutr` reduces its late moves more).
    fn search(&mut self, depth: i32, mut alpha: i32, mut beta: i32, ply: usize, cut: bool) -> i32 {
        self.pv[ply].clear();
        let root = ply == 0;
        let pv_node = beta - alpha > 1;
        let p = ply as i32;
        if !root {
            self.nodes += 1;
            // Not `nodes % N == 0`: VCF nodes are added in bulk and would skip the multiples.
            if self.nodes >= self.next_check {
                self.next_check = self.nodes + CHECK_EVERY_NODES;
                self.check_limits();
            }
            if self.aborted {
                return 0;
            }
        }
        self.seldepth = self.seldepth.max(p);
        let me = self.b.side_to_move();
        let opp = me.opponent();

        // Step 1. Terminal checks: a five now, a full board, the stack's end.
        if !root && self.b.count(me, Threat::Five) > 0 {
            return MATE - p - 1;
        }
        if self.b.is_full() {
            return 0;
        }
        if ply >= MAX_PLY - 1 {
            return self.static_value();
        }
        let opp_fives = self.b.count(opp, Threat::Five);
        if !root {
            // Mate-distance pruning.
            alpha = alpha.max(-MATE + p);
            beta = beta.min(MATE - p - 1);
            if alpha >= beta {
                return alpha;
            }
            // Step 2. Two fives threatened: only one can be blocked. (Not in caro, where one
            // stone may close two fives; the move generator finds such defences.)
            let caro = matches!(self.b.rule(), Rule::Caro { .. });
            if opp_fives >= 2 && !caro {
                return -(MATE - p - 2);
            }
            // Step 3. A win the threat classes show, without searching.
            if opp_fives == 0 && !caro {
                if let Some(n) = quick_win(&mut self.b, self.tuning.quick_win) {
                    return MATE - p - n;
                }
            }
        }

        // Step 4. Transposition table (not in a singular test, whose value leaves out the hash
        // move: it neither reads nor writes the table).
        let key = self.b.hash();
        let excluded = self.excluded[ply];
        let mut tt_move = None;
        let mut tt_bound = None;
        if let Some(e) = self.tt.probe(key).filter(|_| excluded.is_none()) {
            tt_move = self.stored_move(&e);
            let v = tt::value_from_tt(e.value as i32, p);
            tt_bound = Some((v, e.bound, e.depth as i32));
            if !root && !pv_node {
                let fails_high = e.bound & BOUND_LOWER != 0 && v >= beta;
                let fails_low = e.bound & BOUND_UPPER != 0 && v <= alpha;
                let deep_enough = e.depth as i32 >= depth;
                // (Knob `ttmate`) a stored mate bound cuts off whatever its depth.
                let mate = self.tuning.tt_mate;
                let cut = (deep_enough && (e.bound == BOUND_EXACT || fails_high || fails_low))
                    || (mate >= 1 && fails_high && v >= Value::MATE_BOUND.0)
                    || (mate >= 2 && fails_low && v <= -Value::MATE_BOUND.0);
                if cut {
                    return v;
                }
            }
        }

        // Step 4b. Internal iterative reduction: without a hash move the ordering is poor, and
        // a shallower search now fills the table for the next visit.
        let mut depth = depth;
        if self.tuning.iir > 0 && !root && tt_move.is_none() && depth >= self.tuning.iir {
            depth -= 1;
        }

        // Step 5. Leaf: own VCF, else the static value. Forced blocks are always searched,
        // and (knob) the defences against a three.
        if depth <= 0 && opp_fives == 0 {
            let ext = self.tuning.leaf_ext > 0
                && p < self.root_depth + self.tuning.leaf_ext
                && self.b.count(opp, Threat::Flex4) > 0;
            if !ext {
                return self.leaf(p, beta, None);
            }
            depth = 1;
        }
        // Step 5b. Near the root: a VCF of the side to move decides the node.
        let vd = self.tuning.vcf_min_depth;
        if !root && vd > 0 && depth >= vd && opp_fives == 0 {
            if let Some(n) = self.node_vcf(INTERIOR_VCF_DEPTH, INTERIOR_VCF_NODES) {
                return MATE - p - n as i32;
            }
        }

        // Step 5b'. (Knob) a win by continuous threats decides the node.
        let vd = self.tuning.vct_min_depth;
        if !root && vd > 0 && depth >= vd && opp_fives == 0 {
            if let Some(n) = self.node_vct() {
                return MATE - p - n as i32;
            }
        }

        // Step 5c. Reverse futility: far above beta near the leaves, with no opponent
        // threat a shallow search would misjudge, the static value stands.
        let mut stand: Option<i32> = None;
        self.evals[ply] = None;
        // (Knob `corr`) the raw static value and the correction slots, for the correction
        // history's update at the end (the board is the same then).
        let mut corr_raw = None;
        if !self.corr.is_empty() && !root && excluded.is_none() && opp_fives == 0 {
            let (raw, slots) = (self.static_value(), self.corr_slots());
            corr_raw = Some((raw, slots));
            stand = Some(self.corrected_at(raw, &slots));
        }
        let mut improving = false;
        if self.tuning.eval_average > 0 || self.tuning.improving_rfp || self.tuning.improving_lmp {
            let v = self.node_value();
            self.evals[ply] = Some(v);
            stand = Some(self.smoothed(v, ply));
            improving = ply >= 2 && self.evals[ply - 2].is_some_and(|e| v > e);
        }
        let rfp_depth = depth - (improving && self.tuning.improving_rfp) as i32;
        // (Knob `ttse`) a stored bound that is tighter than the static value replaces it for
        // the pruning decisions below.
        let refine = |v: i32| match tt_bound {
            Some((t, bound, _)) if self.tuning.tt_static && t.abs() < Value::MATE_BOUND.0 => {
                if (t > v && bound & BOUND_LOWER != 0) || (t < v && bound & BOUND_UPPER != 0) {
                    t
                } else {
                    v
                }
            }
            _ => v,
        };
        let prune = !pv_node && !root && excluded.is_none();
        if self.tuning.rfp > 0
            && prune
            && depth <= self.tuning.rfp_depth
            && beta.abs() < Value::MATE_BOUND.0
            && opp_fives == 0
            && self.opponent_quiet()
        {
            let v = refine(*stand.get_or_insert_with(|| self.node_value()));
            if v - self.tuning.rfp * rfp_depth >= beta {
                return v;
            }
        }

        // Step 5c'. (Knob) razoring: far below alpha near the leaves, with no opponent threat
        // a shallow search would misjudge, the leaf value stands.
        if self.tuning.razor > 0
            && prune
            && depth < self.tuning.razor_depth
            && alpha.abs() < Value::MATE_BOUND.0
            && opp_fives == 0
            && self.opponent_quiet()
        {
            let v = *stand.get_or_insert_with(|| self.node_value());
            if v + self.tuning.razor * depth <= alpha {
                return self.leaf(p, beta, Some(v));
            }
        }

        // Step 5d. Null move: when even passing keeps the value above beta, so does a move
        // (Gomoku has no zugzwang). Only when the opponent cannot start a four or a double
        // three, whose replies a shallow search would misjudge.
        if self.tuning.nmp > 0
            && prune
            && opp_fives == 0
            && depth >= self.tuning.nmp_depth
            && !self.null_at[ply - 1]
            && beta.abs() < Value::MATE_BOUND.0
            && self.opponent_quiet()
            && self.null_value() >= beta
        {
            let r = self.tuning.nmp + 1 + depth / 4;
            self.b.make_null();
            self.null_at[ply] = true;
            self.ext_used[ply + 1] = self.ext_used[ply];
            let v = -self.search(depth - r, -beta, -beta + 1, ply + 1, !cut);
            self.null_at[ply] = false;
            self.b.unmake_null();
            if self.aborted {
                return 0;
            }
            if v >= beta {
                return if v >= Value::MATE_BOUND.0 { beta } else { v };
            }
        }

        // Step 5d'. (Knob `pc`) ProbCut: a shallower search far above beta ends the node,
        // unless the table already holds a deep enough bound below that.
        let pc = self.tuning.probcut;
        if pc > 0
            && prune
            && opp_fives == 0
            && depth >= self.tuning.probcut_depth
            && beta.abs() < Value::MATE_BOUND.0 - pc
            && (!self.tuning.probcut_static
                || *stand.get_or_insert_with(|| self.node_value()) >= beta)
        {
            let rbeta = beta + pc;
            let pc_depth = depth - self.tuning.probcut_reduction;
            let known_below = matches!(tt_bound,
                Some((v, bound, d)) if d >= pc_depth && bound & BOUND_UPPER != 0 && v < rbeta);
            if !known_below {
                let saved = self.evals[ply];
                let v = self.search(pc_depth, rbeta - 1, rbeta, ply, cut);
                self.evals[ply] = saved;
                self.pv[ply].clear();
                if self.aborted {
                    return 0;
                }
                if v >= rbeta && v < Value::MATE_BOUND.0 {
                    return v - pc;
                }
            }
        }

        // Step 5e. (Knob `iid`) internal iterative deepening: a deep node without a hash move
        // is first searched at half depth, which leaves a best move in the table.
        if self.tuning.iid > 0 && !root && tt_move.is_none() && depth >= self.tuning.iid {
            self.search(depth / 2, alpha, beta, ply, cut);
            if self.aborted {
                return 0;
            }
            tt_move = self.tt.probe(key).and_then(|e| self.stored_move(&e));
        }

        // Step 5f. (Knob `se`) singular extension: without the hash move, do the other moves
        // all stay clearly below its stored lower bound? Then it alone holds the value, and it
        // is searched one ply deeper (only while the path is at most twice the iteration's
        // depth). With `semc`, other moves that reach beta on their own end the node instead.
        // Knobs `sedx` and `sene` extend a clearly singular hash move two plies, and search a
        // hash move that is not alone but stored at or above beta shallower.
        let mut singular = None;
        let test = match (tt_move, tt_bound) {
            (Some(m), Some((tv, bound, tt_depth)))
                if self.tuning.singular_depth > 0
                    && !root
                    && excluded.is_none()
                    && opp_fives == 0
                    && depth >= self.tuning.singular_depth
                    && p < 2 * self.root_depth
                    && bound & BOUND_LOWER != 0
                    && tt_depth >= depth - 3
                    && tv.abs() < Value::MATE_BOUND.0 =>
            {
                Some((m, tv, tv - self.tuning.singular_margin * depth))
            }
            _ => None,
        };
        if let Some((m, tv, sb)) = test {
            self.excluded[ply] = Some(m);
            let v = self.search((depth - 1) / 2, sb - 1, sb, ply, cut);
            self.excluded[ply] = None;
            self.pv[ply].clear();
            if self.aborted {
                return 0;
            }
            if v < sb {
                let double = self.tuning.singular_double;
                let two = double > 0 && !pv_node && v < sb - double;
                singular = Some((m, 1 + two as i32));
            } else if self.tuning.singular_multicut && sb >= beta {
                return sb;
            } else if self.tuning.singular_negative > 0 && tv >= beta {
                singular = Some((m, -self.tuning.singular_negative));
            }
        }

        // Step 6. Moves. A valid hash move is searched before the others are generated: it
        // often cuts off alone, and then the generation is saved.
        let mut moves = std::mem::take(&mut self.buffers[ply]);
        let staged = match tt_move {
            Some(m) if !root && self.in_generated(m, opp_fives) => {
                moves.clear();
                moves.push(Ranked::new(m, i32::MAX));
                self.staged.push(self.history_log.len());
                true
            }
            _ => {
                self.generate(&mut moves, opp_fives, ply, tt_move, pv_node);
                false
            }
        };
        if moves.is_empty() {
            self.buffers[ply] = moves;
            // The only block is a foul for black, or nothing is playable near the stones.
            return if opp_fives > 0 {
                -(MATE - p - 2)
            } else {
                self.node_value()
            };
        }
        let forced = opp_fives > 0;
        // Futility: near the leaves, quiet moves cannot lift a hopeless static value to alpha.
        let futile = self.tuning.fut > 0
            && !pv_node
            && !forced
            && depth <= self.tuning.fut_depth
            && alpha.abs() < Value::MATE_BOUND.0
            && stand.unwrap_or_else(|| self.node_value()) + self.tuning.fut * depth <= alpha;
        let mcp_limit = if self.tuning.move_count_cap > 0 && ply >= 2 && depth > 0 {
            let threats = [
                Threat::Flex3,
                Threat::Three3,
                Threat::Block4,
                Threat::Four3,
                Threat::Flex4,
            ];
            let quiet = self.has_none(me, &threats) && self.has_none(opp, &threats);
            let d = (depth as f64).sqrt();
            if quiet {
                ((15.0 * d - 12.0).round() as usize).clamp(1, 32)
            } else {
                ((5.0 * d - 2.0).round() as usize).clamp(1, self.tuning.move_count_cap)
            }
        } else {
            0
        };
        // The opponent threatens a straight four: own fours are counter-attacks here.
        let opp_three = self.tuning.lmr_threats == 3 && self.b.count(opp, Threat::Flex4) > 0;
        // (Knob `dext`) the defences against a three cost no depth, a few times on a path.
        let ext_on = self.tuning.defence_ext > 0;
        // (The root's entry is never written: 0.)
        let used = if ext_on { self.ext_used[ply] } else { 0 };
        let defence_ext = ext_on
            && used < self.tuning.defence_ext
            && (pv_node || !self.tuning.defence_ext_pv)
            && self.b.count(opp, Threat::Flex4) > 0;
        let orig_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut searched = 0usize;
        let mut pending = staged;
        // The best ordering score below the hash move's (for the policy's reductions).
        let mut top = None;
        for n in 0.. {
            if pending && n == 1 {
                // The hash move did not cut off: the rest, ordered as if generated first.
                pending = false;
                self.generate_after_hash_move(&mut moves, opp_fives, ply, tt_move, pv_node);
            }
            if n >= moves.len() {
                break;
            }
            // Lazy selection: most nodes cut off after a few moves, so sorting all is wasted.
            pick_best(&mut moves, n);
            let m = moves[n].cell();
            let score = moves[n].score();
            if top.is_none() && score != i32::MAX {
                top = Some(score);
            }
            if (root && self.root_exclude.contains(&m)) || Some(m) == excluded {
                continue;
            }
            let mut limit = self.tuning.non_pv_move_limit;
            if self.tuning.lmp_base > 0 && depth > 0 {
                let d = depth as usize;
                let extra = if improving && self.tuning.improving_lmp {
                    d * d / 2
                } else {
                    0
                };
                limit = limit.min(self.tuning.lmp_base + d * d / 2 + extra);
            }
            if !pv_node
                && !forced
                && limit > 0
                && searched >= limit
                && depth >= self.tuning.limit_min_depth
            {
                break;
            }
            if mcp_limit > 0 && !forced && searched >= mcp_limit {
                break;
            }
            let pv_limit = self.tuning.pv_move_limit;
            if pv_node && !root && !forced && pv_limit > 0 && searched >= pv_limit {
                break;
            }
            let tm = self.b.threat(m, me);
            let to = self.b.threat(m, opp);
            if futile && searched > 0 && tm < Threat::Flex3 && to < Threat::Flex3 {
                continue;
            }
            let prune = self.tuning.policy_prune;
            if prune > 0
                && self.policy.is_some()
                && !pv_node
                && !forced
                && searched >= 2
                && (1..=4).contains(&depth)
                && tm < Threat::Block4
                && top.map_or(0, |t: i32| t.saturating_sub(score)) > prune * depth
            {
                continue;
            }
            let new_depth = if forced || defence_ext {
                depth
            } else {
                depth - 1 + singular.filter(|s| s.0 == m).map_or(0, |s| s.1)
            };
            self.tt.prefetch(self.b.hash_after(m));
            if ext_on {
                self.ext_used[ply + 1] = used + (defence_ext && !forced) as i32;
            }
            self.b.make(m);
            let v = if searched == 0 {
                -self.search(new_depth, -beta, -alpha, ply + 1, !pv_node && !cut)
            } else {
                // Late, quiet moves are searched shallower first.
                let quiet = tm < Threat::Flex3 && to < Threat::Flex3;
                let killer = m == self.killers[ply][0] || m == self.killers[ply][1];
                let r = if self.tuning.lmr
                    && depth >= 3
                    && searched >= self.tuning.lmr_from
                    && match self.tuning.lmr_threats {
                        0 => quiet,
                        1 => true,
                        2 => tm < Threat::Block4,
                        _ => tm < Threat::Block4 || !opp_three,
                    }
                    && !(killer && self.tuning.killer_no_reduce)
                {
                    if self.tuning.lmr_log_div > 0 {
                        let x = (depth as f64).ln() * ((searched + 1) as f64).ln() * 10.0
                            / self.tuning.lmr_log_div as f64;
                        let mut r = (x + 0.5) as i32 - pv_node as i32
                            + (cut as i32) * self.tuning.cut_reduction;
                        if self.tuning.lmr_history_div > 0 {
                            r -= self.history[m][me.index()] / self.tuning.lmr_history_div;
                        }
                        if self.policy.is_some() {
                            let gap = top.map_or(0, |t: i32| t.saturating_sub(score));
                            let (far, keep) = (self.tuning.policy_reduce, self.tuning.policy_keep);
                            if far > 0 {
                                r += (gap / far).clamp(0, 2);
                            }
                            if keep > 0 && gap < keep {
                                r -= 1;
                            }
                        }
                        r.clamp(1, depth - 1)
                    } else {
                        1 + (searched >= 8) as i32
                    }
                } else {
                    0
                };
                let mut v = -self.search(new_depth - r, -alpha - 1, -alpha, ply + 1, r > 0 || !cut);
                if v > alpha && r > 0 {
                    v = -self.search(new_depth, -alpha - 1, -alpha, ply + 1, !cut);
                }
                if v > alpha && v < beta {
                    v = -self.search(new_depth, -beta, -alpha, ply + 1, false);
                }
                v
            };
            self.b.unmake();
            searched += 1;
            if self.aborted {
                break;
            }
            if v > best {
                best = v;
                best_move = Some(m);
                if v > alpha {
                    alpha = v;
                    if root {
                        self.root_improved = Some(v);
                    }
                    let (head, tail) = self.pv.split_at_mut(ply + 1);
                    head[ply].clear();
                    head[ply].push(m);
                    head[ply].extend_from_slice(&tail[0]);
                    if v >= beta {
                        if !forced {
                            let k = &mut self.killers[ply];
                            if k[0] != m {
                                k[1] = k[0];
                                k[0] = m;
                            }
                            if let Some(l) = self.b.last_move() {
                                self.counter[l][me.index()] = m;
                            }
                            let c = me.index();
                            let bonus = depth * depth;
                            if self.tuning.history_malus || self.tuning.history_gravity {
                                self.change_history(m, c, |h| Self::history_update(h, bonus));
                            } else {
                                self.change_history(m, c, |h| *h += bonus);
                            }
                            if self.tuning.history_malus {
                                for q in moves[..n].iter().map(|m| m.cell()) {
                                    self.change_history(q, c, |h| Self::history_update(h, -bonus));
                                }
                            }
                            // (Knob `cont`; the last move's place is only looked up when on.)
                            let cont_last = (self.tuning.cont > 0).then(|| self.cont_last());
                            if let Some(last) = cont_last.flatten() {
                                self.change_cont(last, m, c, bonus);
                                if self.tuning.cont_malus {
                                    for q in moves[..n].iter().map(|m| m.cell()) {
                                        self.change_cont(last, q, c, -bonus);
                                    }
                                }
                            }
                        }
                        break;
                    }
                }
            }
        }
        if pending {
            self.end_staged();
        }
        self.buffers[ply] = moves;
        if self.aborted {
            return if root { best } else { 0 };
        }
        if best_move.is_none() {
            // Every root move was excluded, or a singular test's only move.
            return -INF;
        }
        if excluded.is_some() {
            return best;
        }
        let bound = if best >= beta {
            BOUND_LOWER
        } else if best > orig_alpha {
            BOUND_EXACT
        } else {
            BOUND_UPPER
        };
        if let Some((raw, slots)) = corr_raw {
            self.update_correction_at(&slots, raw, best, bound, depth);
        }
        self.tt
            .store(key, tt::value_to_tt(best, p), best_move, depth, bound);
        best
    }

    /// The move a table entry holds, if it is an empty cell of this board.
    fn stored_move(&self, e: &tt::Entry) -> Option<Idx> {
        let m = e.mv as usize;
        (m < self.b.cell_count() && self.b.is_empty(m)).then_some(m)
    }

    /// Whether `m` (an empty cell) is in the list [`Searcher::generate`] would make at this
    /// non-root node, so that it may be searched before the list exists.
    fn in_generated(&mut self, m: Idx, opp_fives: u32) -> bool {
        let me = self.b.side_to_move();
        let opp = me.opponent();
        let renju_black = self.b.rule() == Rule::Renju && me == Color::Black;
        if opp_fives > 0 {
            // Caro's defences need the board tried; elsewhere they are the five points.
            return !matches!(self.b.rule(), Rule::Caro { .. })
                && self.b.is_five(m, opp)
                && (!renju_black || !self.b.is_forbidden(m));
        }
        if self.b.ply() == 0 || !self.b.is_near(m) {
            return false;
        }
        let (tm, to) = (self.b.threat(m, me), self.b.threat(m, opp));
        let must_defend = self.must_defend(opp);
        self.playable(m, tm, to, must_defend, renju_black)
    }

    /// The move generator's filter of an empty cell near the stones with the side to move's
    /// threat `tm` and the opponent's `to` there: [`answers_threat`], and for renju black no
    /// foul ([`is_foul`]).
    #[inline]
    fn playable(
        &mut self,
        i: Idx,
        tm: Threat,
        to: Threat,
        must_defend: bool,
        renju_black: bool,
    ) -> bool {
        answers_threat(tm, to, must_defend) && !(renju_black && is_foul(&mut self.b, i))
    }

    /// Generates the moves of a node whose hash move `tt_move` (at `out[0]`) was searched first,
    /// ordered exactly as if they had been generated before it: the history entries its subtree
    /// changed are set back to their old values for the generation, then forward again.
    fn generate_after_hash_move(
        &mut self,
        out: &mut Vec<Ranked>,
        opp_fives: u32,
        ply: usize,
        tt_move: Option<Idx>,
        pv_node: bool,
    ) {
        let mark = *self.staged.last().expect("a staged node");
        let gravity = self.tuning.history_gravity;
        let (h, o, cont) = (&mut self.history, &mut self.order_bonus, &mut self.cont);
        for &(i, c, old, _) in self.history_log[mark..].iter().rev() {
            set_logged(h, o, cont, (i, c, old), gravity);
        }
        self.generate(out, opp_fives, ply, tt_move, pv_node);
        let (h, o, cont) = (&mut self.history, &mut self.order_bonus, &mut self.cont);
        for &(i, c, _, new) in &self.history_log[mark..] {
            set_logged(h, o, cont, (i, c, new), gravity);
        }
        self.end_staged();
        // The hash move (scored `i32::MAX`) back in front.
        pick_best(out, 0);
        debug_assert_eq!(Some(out[0].cell()), tt_move);
    }

    /// The innermost staged node no longer needs the history log.
    fn end_staged(&mut self) {
        self.staged.pop();
        if self.staged.is_empty() {
            self.history_log.clear();
        }
    }

    /// Changes the history entry of cell `i` for colour index `c`, logging it while a staged
    /// node may still need the old value (see [`Searcher::generate_after_hash_move`]).
    #[inline]
    fn change_history(&mut self, i: Idx, c: usize, f: impl FnOnce(&mut i32)) {
        let h = &mut self.history[i][c];
        let old = *h;
        f(h);
        let new = *h;
        self.order_bonus[i][c] = history_term(new, self.tuning.history_gravity);
        if !self.staged.is_empty() {
            self.history_log.push((i as u32, c as u8, old, new));
        }
    }

    /// The continuation-history slot of a move to `m` by colour index `c` after the last move
    /// `last` (board columns and rows), or `None` when `m` is beyond [`CONT_REACH`] of it.
    #[inline]
    fn cont_slot(last: (Idx, i32, i32), m: (i32, i32), c: usize) -> Option<usize> {
        let (dx, dy) = (m.0 - last.1 + CONT_REACH, m.1 - last.2 + CONT_REACH);
        let side = 2 * CONT_REACH + 1;
        ((0..side).contains(&dx) && (0..side).contains(&dy))
            .then(|| (last.0 * CONT_SQUARE + (dy * side + dx) as usize) * 2 + c)
    }

    /// The last move's cell, column and row, for [`Searcher::cont_slot`].
    fn cont_last(&self) -> Option<(Idx, i32, i32)> {
        self.b.last_move().map(|l| {
            let p = self.b.pos(l);
            (l, p.x as i32, p.y as i32)
        })
    }

    /// Moves the continuation-history entry of the move `m` by colour index `c` by `bonus`
    /// (towards +-[`HISTORY_MAX`]), logged as [`Searcher::change_history`] does.
    fn change_cont(&mut self, last: (Idx, i32, i32), m: Idx, c: usize, bonus: i32) {
        let p = self.b.pos(m);
        if let Some(slot) = Self::cont_slot(last, (p.x as i32, p.y as i32), c) {
            let h = &mut self.cont[slot];
            let old = *h;
            Self::history_update(h, bonus);
            if !self.staged.is_empty() {
                self.history_log.push((slot as u32, 2, old, *h));
            }
        }
    }

    /// Moves a history entry by `bonus`, slowing down as it nears +-[`HISTORY_MAX`].
    fn history_update(h: &mut i32, bonus: i32) {
        let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        *h += b - *h * b.abs() / HISTORY_MAX;
    }

    /// The opponent of the side to move has no cell for a straight four, a four-three or a
    /// double three: no threat whose replies a shallow search would misjudge.
    fn opponent_quiet(&self) -> bool {
        let opp = self.b.side_to_move().opponent();
        self.has_none(opp, &[Threat::Three3, Threat::Four3, Threat::Flex4])
    }

    /// `c` has no empty cell of any of the threat classes `classes`.
    fn has_none(&self, c: Color, classes: &[Threat]) -> bool {
        classes.iter().all(|&t| self.b.count(c, t) == 0)
    }

    /// The static evaluation with this search's knobs.
    #[inline]
    fn static_value(&self) -> i32 {
        let v = crate::eval::search_value(
            &self.b,
            self.tuning.initiative_16ths,
            self.indicators.as_ref(),
            self.net,
            self.tuning.net_pct,
        );
        match self.cellnet {
            Some(n) => n.value(&self.b, v),
            None => v,
        }
    }

    /// The correction-history slots of this position (knob `corr`), one per table (`usize::MAX`
    /// for a table not in use, see [`Tuning::correction_keys`]). The threat key: the side to
    /// move, and per colour (own first) its counts of flex threes and blocked fours (up to three
    /// each) and whether it has a double three, a four-three and a straight four.
    fn corr_slots(&self) -> [usize; CORR_TABLES] {
        let me = self.b.side_to_move();
        let n = |c: Color, t: Threat, most: u32| self.b.count(c, t).min(most) as usize;
        let sig = |c: Color| {
            n(c, Threat::Flex3, 3)
                | n(c, Threat::Block4, 3) << 2
                | n(c, Threat::Three3, 1) << 4
                | n(c, Threat::Four3, 1) << 5
                | n(c, Threat::Flex4, 1) << 6
        };
        let threats = me.index() << 14 | sig(me) << 7 | sig(me.opponent());
        let keys = self.tuning.correction_keys;
        let mut slots = [usize::MAX; CORR_TABLES];
        if keys & 1 != 0 {
            slots[0] = threats;
        }
        if keys & 2 != 0 {
            let small = |c: Color| n(c, Threat::Three2, 3) | n(c, Threat::Two2, 3) << 2;
            let wide = (threats as u64) << 8 | (small(me) << 4 | small(me.opponent())) as u64;
            let hashed = (wide.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 49) as usize;
            slots[1] = CORR_LEN + (hashed & (CORR_LEN - 1));
        }
        if keys & 4 != 0 {
            let last = self.b.last_move().map_or(0, |m| m * 2 + me.index());
            slots[2] = 2 * CORR_LEN + (last & (CORR_LEN - 1));
        }
        slots
    }

    /// The sum of the correction tables' entries at `slots`, in [`CORR_GRAIN`]ths.
    fn corr_sum(&self, slots: &[usize; CORR_TABLES]) -> i32 {
        slots.iter().filter_map(|&i| self.corr.get(i)).sum::<i32>()
    }

    /// The static value `v` with the correction history's share (knob `corr`) added.
    fn corrected(&self, v: i32) -> i32 {
        if self.corr.is_empty() {
            return v;
        }
        self.corrected_at(v, &self.corr_slots())
    }

    /// [`Searcher::corrected`] with this position's correction slots already known.
    fn corrected_at(&self, v: i32, slots: &[usize; CORR_TABLES]) -> i32 {
        v + self.corr_sum(slots) * self.tuning.correction_pct / (100 * CORR_GRAIN)
    }

    /// The static value as the search's pruning and leaves use it (corrected, see
    /// [`Searcher::corrected`]).
    fn node_value(&self) -> i32 {
        self.corrected(self.static_value())
    }

    /// [`Searcher::update_correction_at`] at this position's slots (for tests).
    #[cfg(test)]
    fn update_correction(&mut self, raw: i32, best: i32, bound: u8, depth: i32) {
        self.update_correction_at(&self.corr_slots(), raw, best, bound, depth);
    }

    /// Moves the correction-history entries at `slots` (this position's) towards
    /// `best - raw`, the error of the static value `raw` that a search of `depth` plies with
    /// result `best` (bound `bound`) showed: not for mate values, nor when the bound leaves the
    /// error's sign open.
    fn update_correction_at(
        &mut self,
        slots: &[usize; CORR_TABLES],
        raw: i32,
        best: i32,
        bound: u8,
        depth: i32,
    ) {
        let full = raw + self.corr_sum(slots) / CORR_GRAIN;
        let known = match bound {
            BOUND_LOWER => best > full,
            BOUND_UPPER => best < full,
            _ => true,
        };
        if best.abs() >= Value::MATE_BOUND.0 || !known {
            return;
        }
        let w = (depth.clamp(1, 16) * self.tuning.correction_rate).min(64);
        let lim = CORR_MAX * CORR_GRAIN;
        // Each table in use takes its share of the step, so that their sum moves by it.
        let tables = self.tuning.correction_keys.count_ones() as i32;
        let step = (best - full) * CORR_GRAIN * w / (64 * tables);
        for &i in slots {
            if let Some(e) = self.corr.get_mut(i) {
                *e = (*e + step).clamp(-lim, lim);
            }
        }
    }

    /// The static value `v` of the node at `ply` smoothed with its parent's (knob `avg`, see
    /// [`Tuning::eval_average`]); `v` itself when the knob is off or the parent has none.
    fn smoothed(&self, v: i32, ply: usize) -> i32 {
        let a = self.tuning.eval_average;
        match ply.checked_sub(1).and_then(|q| self.evals[q]) {
            Some(parent) if a > 0 => ((4 - a) * v - a * parent) / 4,
            _ => v,
        }
    }

    /// The static value for the side to move if it passed (the opponent has the initiative).
    fn null_value(&mut self) -> i32 {
        self.b.make_null();
        let v = -self.static_value();
        self.b.unmake_null();
        v
    }

    /// A VCF for the side to move within `max_nodes` (none if it has no four to start with).
    fn node_vcf(&mut self, depth: u32, max_nodes: u64) -> Option<u32> {
        let me = self.b.side_to_move();
        let fours = self.b.count(me, Threat::Block4) + self.b.count(me, Threat::Four3);
        if fours == 0 {
            return None;
        }
        let mut vcf = Vcf {
            cache: self.vcf_cache,
            nodes: 0,
            node_limit: max_nodes,
            deadline: None,
        };
        let mut line = Vec::new();
        let r = vcf.solve(&mut self.b, depth, &mut line);
        self.nodes += vcf.nodes;
        r
    }

    /// A win by continuous threes and fours for the side to move, within the knobs' caps (none if
    /// it cannot make a three or a four).
    fn node_vct(&mut self) -> Option<u32> {
        let me = self.b.side_to_move();
        let threats = [Threat::Flex3, Threat::Three3, Threat::Block4, Threat::Four3]
            .iter()
            .map(|&t| self.b.count(me, t))
            .sum::<u32>();
        if threats == 0 {
            return None;
        }
        let cache = self
            .vct_cache
            .get_or_insert_with(|| Box::new(VctCache::new(16)));
        let mut vct = Vct::new(cache, self.tuning.vct_nodes, None);
        let mut line = Vec::new();
        let r = vct.solve(
            &mut self.b,
            self.tuning.vct_depth,
            self.tuning.vct_threes,
            &mut line,
        );
        self.nodes += vct.nodes;
        r
    }

    /// The value of a quiet leaf: a win by continuous fours if there is one (knobs `vcf`, `vcfb`),
    /// else the evaluation.
    /// `stand` is the static value (smoothed, knob `avg`) when the caller has it already.
    fn leaf(&mut self, p: i32, beta: i32, stand: Option<i32>) -> i32 {
        let v = stand.unwrap_or_else(|| {
            let v = if self.tuning.correction_leaves {
                self.node_value()
            } else {
                self.static_value()
            };
            self.smoothed(v, p as usize)
        });
        let t = &self.tuning;
        if t.leaf_vcf || (t.leaf_vcf_below_beta && v < beta) {
            if let Some(n) = self.node_vcf(LEAF_VCF_DEPTH, self.tuning.leaf_vcf_nodes) {
                return MATE - p - n as i32;
            }
        }
        v
    }

    /// Fills `out` with the moves worth searching, best first.
    /// Whether `opp` can make a straight four (or a double four) next move, so that the side
    /// to move must defend or counter with a four. Renju black cannot when each such point is a
    /// foul (unless the knob `rfoul` is off).
    fn must_defend(&mut self, opp: Color) -> bool {
        self.b.count(opp, Threat::Flex4) > 0
            && (!self.tuning.renju_fouls_defend || has_legal(&mut self.b, opp, Threat::Flex4))
    }

    fn generate(
        &mut self,
        out: &mut Vec<Ranked>,
        opp_fives: u32,
        ply: usize,
        tt_move: Option<Idx>,
        _pv_node: bool,
    ) {
        out.clear();
        let me = self.b.side_to_move();
        let opp = me.opponent();
        let renju_black = self.b.rule() == Rule::Renju && me == Color::Black;
        // Step 1. The opponent threatens five: the defences (every block if several at the
        // root, where the game must go on; in caro also the stones that close a five's end).
        if opp_fives > 0 {
            if matches!(self.b.rule(), Rule::Caro { .. }) {
                let fives: Vec<Idx> = self.b.cells_with(opp, Threat::Five).collect();
                let mut blocks = Vec::new();
                self.b.five_defences(&fives, &mut blocks);
                if blocks.is_empty() && ply == 0 {
                    blocks = fives;
                }
                out.extend(blocks.into_iter().map(|i| Ranked::new(i, 0)));
                return;
            }
            // Elsewhere the defences are the five points themselves (two or more only reach
            // here at the root). `cells_with(opp, Five)` by hand (no borrow held across
            // `is_forbidden`).
            // The count of five points is known, so the scan stops at the last one.
            let mut left = opp_fives;
            for i in self.b.area(4) {
                if self.b.is_empty(i) && self.b.is_five(i, opp) {
                    if !renju_black || !self.b.is_forbidden(i) {
                        out.push(Ranked::new(i, 0));
                    }
                    left -= 1;
                    if left == 0 {
                        break;
                    }
                }
            }
            return;
        }
        // Step 2. The opponent can make a straight four: defend, or counter with a four.
        let must_defend = self.must_defend(opp);
        let killers = self.killers[ply];
        let t = &self.tuning;
        // The columns and rows of the last four moves (`back` moves before the last one), each
        // looked up once (a cell's column and row cost a division).
        let moves_xy = [0, 1, 2, 3].map(|back| {
            self.b.move_back(back).map(|m| {
                let p = self.b.pos(m);
                (p.x as i32, p.y as i32)
            })
        });
        let back_xy = |back: usize| moves_xy[back];
        // The near-move bonuses as (column, row, bonus); a missing move adds nothing.
        let near_bonus = |back: usize, bonus: i32| -> (i32, i32, i32) {
            match back_xy(back) {
                Some((x, y)) if bonus != 0 => (x, y, bonus),
                _ => (0, 0, 0),
            }
        };
        let near = [near_bonus(0, t.last_bonus), near_bonus(1, t.own_last_bonus)];
        let counter = match self.b.last_move() {
            Some(l) if t.counter_bonus != 0 => self.counter[l][me.index()],
            _ => usize::MAX,
        };
        let (ob, counter_bonus) = (t.order_bonus, t.counter_bonus);
        let (far_scale, far_radius) = (t.far_scale != 0, t.far_radius);
        let attack = t.order_attack_16ths;
        // (Knob `far`) the last four moves' coordinates, for the distance scaling; a missing
        // move sits far away.
        let recent = if far_scale {
            [0, 1, 2, 3].map(|k| back_xy(k).unwrap_or((-100, -100)))
        } else {
            [(0, 0); 4]
        };
        // Which recent moves a cell is far from, and which near-move bonuses it earns, as bits
        // per column and per row: a cell is far from a move when its column or its row is,
        // and within two steps when both are, so two lookups per cell answer all six tests.
        // Only the columns and rows of the candidates' rectangle are read.
        // A policy reads its distances (to the last move and to our own last move) the same
        // way: a cell's distance to a move is the larger of its column's and its row's.
        let policy = self.policy.map(|p| p.tables(me.index()));
        let (last, own_last) = (back_xy(0), back_xy(1));
        let (x0, y0, x1, y1) = self.b.near_rect();
        let (cols, rows) = if policy.is_some() {
            (
                axis_distances(x0..=x1, last, own_last, |(x, _)| x),
                axis_distances(y0..=y1, last, own_last, |(_, y)| y),
            )
        } else {
            (
                axis_masks(x0..=x1, &recent, &near, far_radius, |(x, _)| x),
                axis_masks(y0..=y1, &recent, &near, far_radius, |(_, y)| y),
            )
        };
        let c = me.index();
        // On the empty board only the centre; else the empty cells near a stone.
        // (Knob `star=1`) the root's candidates come from the whole 5x5 square: the counts are
        // rebuilt for it and back (a scan of the board, once per root generation).
        let root_square = ply == 0 && t.near_star == 1;
        if root_square {
            self.b.set_near_star(false);
        }
        let n = self.b.near_empty_cells(&mut self.near_cells);
        if root_square {
            self.b.set_near_star(true);
        }
        // The moves are scored into place (`k` counts those kept) with the board only read: the
        // rare renju foul test, which changes the board while it runs, comes after, so that the
        // loop can keep the board's and the history's arrays at hand instead of reloading them.
        out.resize(n, Ranked(0));
        // The near-move bonuses by the two `close` bits, and the killer and counter-move bonuses
        // per cell (added to the history's share here, taken off after the loop): a lookup
        // each instead of compares.
        let near_add = [0, near[0].2, near[1].2, near[0].2 + near[1].2];
        let bonus_cells = [
            (killers[0], 300),
            (killers[1], if killers[1] == killers[0] { 0 } else { 200 }),
            (counter, counter_bonus),
        ];
        for &(i, bonus) in &bonus_cells {
            if let Some(e) = self.order_bonus.get_mut(i) {
                e[c] += bonus;
            }
        }
        // (Knob `cont`) the continuation history after the opponent's last move.
        let cont_last = if t.cont > 0 { self.cont_last() } else { None };
        let scoring = Scoring {
            must_defend,
            policy,
            windows: policy.and_then(|p| p.windows()),
            cols,
            rows,
            threat_bonus: ob,
            attack,
            far_scale,
            near_add,
            bonus: &self.order_bonus,
            cont: cont_last.map(|l| (l, &self.cont[..], t.cont)),
            tt: tt_move.unwrap_or(usize::MAX),
        };
        let (b, cells) = (&self.b, &self.near_cells[..n]);
        let k = if c == 0 {
            scoring.score::<0>(b, cells, out)
        } else {
            scoring.score::<1>(b, cells, out)
        };
        out.truncate(k);
        for &(i, bonus) in &bonus_cells {
            if let Some(e) = self.order_bonus.get_mut(i) {
                e[c] -= bonus;
            }
        }
        let maybe_fouls = renju_black && out.iter().any(|m| self.b.maybe_forbidden(m.cell()));
        if maybe_fouls {
            // The rest of `playable`: renju black's fouls.
            let b = &mut self.b;
            out.retain(|m| !is_foul(b, m.cell()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A searcher over `moves` (algebraic) on 15x15 freestyle with the knobs `tuning`.
    fn searcher_for<'a>(
        moves: &str,
        tuning: &str,
        tt: &'a Tt,
        vcf: &'a VcfCache,
        stop: &'a AtomicBool,
    ) -> Searcher<'a> {
        let mut b = FastBoard::new(15, 15, Rule::Freestyle).unwrap();
        for m in crate::pos::parse_algebraic(moves).unwrap() {
            let i = b.idx(m);
            b.make(i);
        }
        let ctl = Control {
            stop,
            start: std::time::Instant::now(),
            hard_ms: u64::MAX,
            max_nodes: u64::MAX,
        };
        set_tuning(Tuning::parse(tuning).unwrap());
        let s = Searcher::new(b, tt, vcf, ctl);
        set_tuning(Tuning::DEFAULT);
        s
    }

    /// Runs `s`'s iterations 1 to `depth`, checking that each one's best move is an empty cell;
    /// returns the last value.
    fn deepen(s: &mut Searcher, depth: i32, knobs: &str) -> i32 {
        let mut prev = None;
        for d in 1..=depth {
            let it = s.iterate(d, prev).unwrap();
            assert!(s.b.is_empty(it.pv[0]), "{knobs}");
            prev = Some(it.value);
        }
        prev.unwrap_or_else(|| unreachable!("depth 1 or more"))
    }

    /// Searches `moves` iteration by iteration to `depth` with the knobs `knobs` and a fresh
    /// table, checks that the board is as it was, runs `check` on the searcher and returns the
    /// nodes searched.
    fn nodes_to_depth(moves: &str, depth: i32, knobs: &str, check: impl Fn(&Searcher)) -> u64 {
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        let mut s = searcher_for(moves, knobs, &tt, &vcf, &stop);
        let ply = s.b.ply();
        deepen(&mut s, depth, knobs);
        assert_eq!(s.b.ply(), ply, "{knobs}");
        check(&s);
        s.nodes
    }

    /// With the knobs `knobs`, black's straight four at g8 (a forced win) is still found and
    /// played.
    fn plays_the_forced_win(knobs: &str) {
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        let mut s = searcher_for("h8l8i8a1j8a3", knobs, &tt, &vcf, &stop);
        let g8 = s.b.idx(crate::pos::Pos::new(6, 7));
        let v = deepen(&mut s, 5, knobs);
        assert_eq!((v, s.pv[0][0]), (MATE - 3, g8), "{knobs}");
    }

    #[test]
    fn long_searches_switch_to_their_own_reductions() {
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        let knobs = "lmrlong=14,longms=2000";
        for (hard_ms, div) in [
            (900, 18),
            (1999, 18),
            (2000, 14),
            (4500, 14),
            (u64::MAX, 14),
        ] {
            let mut s = searcher_for("h8", knobs, &tt, &vcf, &stop);
            s.set_search_length(hard_ms);
            assert_eq!(s.tuning().lmr_log_div, div, "hard limit {hard_ms} ms");
        }
        // Off (`lmrlong=0`): the same reductions whatever the clock.
        let mut s = searcher_for("h8", "lmrlong=0", &tt, &vcf, &stop);
        s.set_search_length(u64::MAX);
        assert_eq!(s.tuning().lmr_log_div, LMR_LOG_DIV);
    }

    #[test]
    fn a_singular_test_searches_without_the_excluded_move() {
        // Black's three h8-j8 is blocked at l8 from afar: only g8 makes an open four.
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        let mut s = searcher_for("h8l8i8a1j8a3", "", &tt, &vcf, &stop);
        let g8 = s.b.idx(crate::pos::Pos::new(6, 7));
        assert_eq!(s.b.threat(g8, Color::Black), Threat::Flex4);
        let v = s.search(3, -INF, INF, 0, false);
        assert_eq!((v, s.pv[0][0]), (MATE - 3, g8));
        // Without g8 nothing wins that fast, and the table's entries for this position (stored
        // just now) are not read.
        s.excluded[0] = Some(g8);
        let v = s.search(3, -INF, INF, 0, false);
        s.excluded[0] = None;
        assert!(v.abs() < Value::MATE_BOUND.0, "{v}");
        assert_ne!(s.pv[0].first(), Some(&g8));
    }

    #[test]
    fn singular_extensions_leave_no_move_excluded() {
        // A middle game; with `se=2` nearly every node with a hash move runs a singular test.
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        let moves = "h8i9i7g9j8k9h9h7j10k11j9j7";
        for knobs in ["se=2", "se=2,semc=1", "se=3,sem=0", "se=2,sedx=20,sene=1"] {
            let mut s = searcher_for(moves, knobs, &tt, &vcf, &stop);
            deepen(&mut s, 7, knobs);
            assert!(s.excluded.iter().all(Option::is_none), "{knobs}");
            assert_eq!(s.b.ply(), 12, "{knobs}");
        }
    }

    #[test]
    fn probcut_cuts_nodes_and_keeps_the_board_and_wins() {
        // An opening without threats: with a small margin from depth 3, ProbCut's shallower
        // searches end nodes, so the tree differs from the default one, and every search leaves
        // the board as it found it with a legal best move.
        let nodes = |knobs: &str| nodes_to_depth("h8i9i7g9", 9, knobs, |_| ());
        let base = nodes("");
        for knobs in ["pc=50,pcdepth=3,pcr=2", "pc=50,pcdepth=3,pcr=2,pcs=1"] {
            assert_ne!(nodes(knobs), base, "{knobs}");
        }
        plays_the_forced_win("pc=50,pcdepth=2,pcr=1");
    }

    #[test]
    fn continuation_history_learns_refutations_of_the_last_move() {
        // The slots: one per colour and cell of the square around the last move, none beyond.
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        let s = searcher_for("h8", "cont=300", &tt, &vcf, &stop);
        let last = s.cont_last().unwrap();
        assert_eq!((last.1, last.2), (7, 7));
        let mut slots = std::collections::HashSet::new();
        for (x, y) in (0..15).flat_map(|x| (0..15).map(move |y| (x, y))) {
            for c in 0..2 {
                let slot = Searcher::cont_slot(last, (x, y), c);
                let within = (x - 7i32).abs() <= CONT_REACH && (y - 7i32).abs() <= CONT_REACH;
                assert_eq!(slot.is_some(), within, "{x},{y}");
                if let Some(slot) = slot {
                    assert!(slot < s.cont.len() && slots.insert(slot), "{x},{y}");
                }
            }
        }
        assert_eq!(slots.len(), 2 * CONT_SQUARE);
        // Off by default: no table. On, a middle game's search learns entries within their
        // bounds, changes the tree and leaves the board as it found it.
        let nodes = |knobs: &str| {
            nodes_to_depth("h8i9i7g9j8k9h9h7j10k11j9j7", 8, knobs, |s| {
                assert_eq!(s.cont.is_empty(), knobs.is_empty(), "{knobs}");
                assert!(knobs.is_empty() || s.cont.iter().any(|&h| h > 0), "{knobs}");
                assert!(s.cont.iter().all(|h| h.abs() <= HISTORY_MAX), "{knobs}");
                assert!(s.history_log.is_empty() && s.staged.is_empty(), "{knobs}");
            })
        };
        let base = nodes("");
        for knobs in ["cont=300", "cont=300,contm=1"] {
            assert_ne!(nodes(knobs), base, "{knobs}");
        }
        plays_the_forced_win("cont=1000,contm=1");
    }

    #[test]
    fn correction_history_moves_the_static_value_towards_search_results() {
        let (tt, vcf, stop) = (Tt::new(1 << 20), VcfCache::new(10), AtomicBool::new(false));
        // Off by default: no table, the static value unchanged.
        let s = searcher_for("h8i9", "", &tt, &vcf, &stop);
        assert!(s.corr.is_empty());
        assert_eq!(s.node_value(), s.static_value());
        for keys in ["1", "2", "4", "7"] {
            let mut s = searcher_for("h8i9", &format!("corr=100,corrk={keys}"), &tt, &vcf, &stop);
            let raw = s.static_value();
            assert_eq!(s.node_value(), raw, "corrk={keys}: nothing learnt yet");
            // Mate values and bounds that leave the error's sign open teach nothing.
            s.update_correction(raw, MATE - 5, BOUND_EXACT, 8);
            s.update_correction(raw, raw + 50, BOUND_UPPER, 8);
            s.update_correction(raw, raw - 50, BOUND_LOWER, 8);
            assert_eq!(s.node_value(), raw, "corrk={keys}");
            // Deep results 40 above the static value pull it up, never past them.
            let mut last = raw;
            for _ in 0..50 {
                s.update_correction(raw, raw + 40, BOUND_EXACT, 16);
                let v = s.node_value();
                assert!(v >= last && v <= raw + 40, "corrk={keys}: {v} after {last}");
                last = v;
            }
            assert!(last >= raw + 35, "corrk={keys}: {last}");
            // A huge error is capped per table.
            for _ in 0..200 {
                s.update_correction(raw, raw - 5000, BOUND_EXACT, 16);
            }
            let tables = keys.parse::<u32>().unwrap().count_ones() as i32;
            assert!(s.node_value() >= raw - CORR_MAX * tables, "corrk={keys}");
            // The side to move's entry is not the opponent's.
            s.b.make(s.b.idx(crate::pos::Pos::new(0, 0)));
            if keys == "1" {
                assert_eq!(s.node_value(), s.static_value());
            }
        }
        // Leaves take the correction unless `corrleaf=0`; the pruning's static value always.
        for (knobs, leaves) in [("corr=100", true), ("corr=100,corrleaf=0", false)] {
            let mut s = searcher_for("h8i9", knobs, &tt, &vcf, &stop);
            let raw = s.static_value();
            for _ in 0..50 {
                s.update_correction(raw, raw + 40, BOUND_EXACT, 16);
            }
            assert!(s.node_value() > raw, "{knobs}");
            let want = if leaves { s.node_value() } else { raw };
            assert_eq!(s.leaf(2, MATE, None), want, "{knobs}");
        }
    }

    #[test]
    fn history_with_malus_saturates_at_its_bound() {
        let mut h = 0;
        for _ in 0..1000 {
            Searcher::history_update(&mut h, 400);
            assert!((0..=HISTORY_MAX).contains(&h), "{h}");
        }
        assert!(h > HISTORY_MAX * 9 / 10, "{h}");
        for _ in 0..1000 {
            Searcher::history_update(&mut h, -10_000);
            assert!((-HISTORY_MAX..=HISTORY_MAX).contains(&h), "{h}");
        }
        assert_eq!(h, -HISTORY_MAX);
        // Small steps from zero move it by the step.
        let mut h = 0;
        Searcher::history_update(&mut h, 9);
        assert_eq!(h, 9);
    }

    /// The moves `generate` gives white in a renju position where black's only open three has
    /// two straight-four points that are both fouls (double fours), with the knob `rfoul`.
    fn white_moves_against_a_fake_three(rfoul: bool) -> (FastBoard, Vec<Idx>) {
        use crate::pos::Pos;
        let black = [
            (5, 7),
            (6, 7),
            (7, 7),
            (4, 4),
            (4, 5),
            (4, 6),
            (8, 4),
            (8, 5),
            (8, 6),
        ];
        let white = [
            (4, 3),
            (8, 3),
            (0, 14),
            (3, 14),
            (6, 14),
            (9, 14),
            (12, 14),
            (14, 11),
        ];
        let mut b = FastBoard::new(15, 15, Rule::Renju).unwrap();
        for k in 0..black.len() {
            for &(x, y) in [black.get(k), white.get(k)].into_iter().flatten() {
                let i = b.idx(Pos::new(x, y));
                b.make(i);
            }
        }
        let (p47, p87) = (b.idx(Pos::new(4, 7)), b.idx(Pos::new(8, 7)));
        assert_eq!(b.side_to_move(), Color::White);
        assert_eq!(b.count(Color::Black, Threat::Flex4), 2);
        assert!(b.is_forbidden(p47) && b.is_forbidden(p87));
        let tt = Tt::new(1 << 20);
        let vcf = VcfCache::new(10);
        let stop = AtomicBool::new(false);
        let ctl = Control {
            stop: &stop,
            start: std::time::Instant::now(),
            hard_ms: u64::MAX,
            max_nodes: u64::MAX,
        };
        set_tuning(Tuning {
            renju_fouls_defend: rfoul,
            ..Tuning::DEFAULT
        });
        let mut s = Searcher::new(b.clone(), &tt, &vcf, ctl);
        set_tuning(Tuning::DEFAULT);
        let mut out = Vec::new();
        s.generate(&mut out, 0, 1, None, false);
        (b, out.into_iter().map(Ranked::cell).collect())
    }

    #[test]
    fn renju_white_need_not_block_a_three_whose_fours_are_fouls() {
        // Every straight-four point of black is a foul: white may play anywhere near the stones.
        let (b, moves) = white_moves_against_a_fake_three(true);
        let near = b.area(2).filter(|&i| b.is_empty(i) && b.is_near(i)).count();
        assert_eq!(moves.len(), near);
        // Counting them as threats (the old behaviour), white only defends or makes a four.
        let (b, moves) = white_moves_against_a_fake_three(false);
        assert!(moves.len() < near / 4, "{}", moves.len());
        for m in moves {
            let four = |c| b.threat(m, c) >= Threat::Block4;
            assert!(four(Color::White) || four(Color::Black), "{}", b.pos(m));
        }
    }
}
