//! The engine facade: game state in, moves out, no text I/O.
//!
//! The protocol layer translates commands into calls on [`Engine`] and [`SearchResult`]s back into
//! text; the search never sees the protocol. `think` may run on its own thread while another thread
//! sets the shared stop flag.

use crate::board::fast::FastBoard;
use crate::board::{BoardError, Game};
use crate::pos::Pos;
use crate::search::{self, alphabeta, smp, tt, tt::Tt, vcf::VcfCache, vct::VctCache};
use crate::types::{Depth, Rule, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What limits one search. `None` always means "no limit of this kind".
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Per-move limit in ms (`INFO timeout_turn`); `Some(0)` = answer at once.
    pub turn_time_ms: Option<u64>,
    /// Whole-game budget in ms (`INFO timeout_match`; 0 is sent as `None`).
    pub match_time_ms: Option<u64>,
    /// Remaining match time in ms (`INFO time_left`; may be negative; 2147483647 = unlimited).
    pub time_left_ms: Option<i64>,
    /// Node cap (`INFO max_node`).
    pub max_nodes: Option<u64>,
    /// Depth cap in plies (`INFO max_depth`).
    pub max_depth: Option<Depth>,
    /// Playing strength 0..=100 (`INFO strength`); 100 = full strength.
    pub strength: u32,
    /// Search threads (`INFO thread_num`): the main thread plus `threads - 1` Lazy SMP helpers
    /// (see [`search::smp`]); at most [`MAX_THREADS`] and the machine's cores. 0 counts as 1.
    /// Node-limited searches (`max_nodes` or a weak `strength`) always run on one thread.
    pub threads: usize,
    /// Empty cells the search must not play: a continuous game's marked stones (BOARD field 3),
    /// which the board cannot hold. Without them the search is the usual one; with them it
    /// skips the root's forced-win shortcuts (the threat solvers do not know the marks).
    pub avoid: Vec<Pos>,
    /// When the request arrived: the search's clock runs from here (`None`: from the start of
    /// the search). Time spent before the search begins, e.g. waiting for the rule's lookup
    /// tables that another thread is still building, then counts against the limits.
    pub started: Option<Instant>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            turn_time_ms: None,
            match_time_ms: None,
            time_left_ms: None,
            max_nodes: None,
            max_depth: None,
            strength: 100,
            threads: 1,
            avoid: Vec::new(),
            started: None,
        }
    }
}

/// Progress of a running search (one line of analysis for GUIs that ask for it).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    pub depth: Depth,
    pub seldepth: Depth,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub value: Value,
    pub pv: Vec<Pos>,
}

/// The answer of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` only when the board has no empty cell.
    pub best: Option<Pos>,
    /// Value for the side to move.
    pub value: Value,
    pub depth: Depth,
    pub nodes: u64,
    pub elapsed_ms: u64,
    /// Principal variation, starting with `best`.
    pub pv: Vec<Pos>,
}

/// Default hash memory when the manager sets no `max_memory` (Gomocup's cap is 350 MiB).
pub const DEFAULT_MEMORY_BYTES: u64 = 350 * 1024 * 1024;

/// A game position plus the search machinery.
pub struct Engine {
    game: Game,
    rule: Rule,
    memory_bytes: u64,
    /// Search threads of the last search (the hash size leaves room for their extras).
    threads: usize,
    tt: Option<Tt>,
    vcf_cache: Option<VcfCache>,
    vct_cache: Option<VctCache>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("game", &self.game)
            .field("rule", &self.rule)
            .field("memory_bytes", &self.memory_bytes)
            .field("tt_bytes", &self.tt.as_ref().map(Tt::bytes))
            .finish()
    }
}

impl Default for Engine {
    fn default() -> Engine {
        Engine::new()
    }
}

/// Bytes the process needs besides the transposition table (code, pattern tables, stacks, boards,
/// the VCF cache and the VCT caches of 2 x 4 MiB, the proof-number VCT's tree of up to 8 MiB
/// when knob `rvctpn` is on, allocator slack).
pub const NON_TT_BYTES: u64 = 48 * 1024 * 1024;
/// Largest transposition table, whatever the memory limit.
pub const MAX_TT_BYTES: u64 = 1 << 30;
/// Slots (as a power of two) of the VCF failure cache (8-byte slots: 8 MiB).
pub const VCF_CACHE_BITS: u32 = 20;
/// Slots (as a power of two) of the VCT failure cache and of its inner VCF cache (2 x 4 MiB).
pub const VCT_CACHE_BITS: u32 = 19;
/// Bytes of the threat caches at full size (the VCF cache and the two of the VCT cache).
pub const THREAT_CACHE_BYTES: u64 = threat_cache_bytes(VCF_CACHE_BITS, VCT_CACHE_BITS);

/// Bytes of the threat caches with `2^vcf_bits` VCF slots (8 bytes each) and `2^vct_bits`
/// slots in each of the VCT cache's two tables (8 bytes each).
const fn threat_cache_bytes(vcf_bits: u32, vct_bits: u32) -> u64 {
    (8 << vcf_bits) + (16 << vct_bits)
}
/// Bytes of the process besides the search's tables: code, every rule's pattern tables,
/// stacks, boards, allocator slack. Under a `max_memory` too small for full-size threat caches,
/// they get at most half of what is left after this and the helpers' extras.
pub const BASE_BYTES: u64 = 12 * 1024 * 1024;
/// The most the threat caches shrink (their slot counts are divided by up to 2^this).
pub const MAX_CACHE_SHRINK: u32 = 8;
/// Below this memory limit the process cannot keep to it, even with the smallest tables and one
/// thread (it peaks at about 12 MiB then; README, "Engine and search").
pub const MIN_MEMORY_BYTES: u64 = 16 * 1024 * 1024;
/// Most search threads `think` runs (`Limits::threads` is capped here and at the core count).
pub const MAX_THREADS: usize = 64;
/// Memory set aside for each helper thread besides the shared tables: its board, killers,
/// history, move buffers and the stack pages its recursion touches (well under this).
pub const THREAD_BYTES: u64 = 2 * 1024 * 1024;

/// A search with helpers spends at most its hard time limit divided by this on faulting in the
/// shared tables (see [`Engine::think`]).
pub const FAULT_IN_DIVISOR: u64 = 8;

impl Engine {
    /// An engine with an empty 15x15 freestyle game.
    pub fn new() -> Engine {
        Engine {
            game: Game::new(15, 15, Rule::Freestyle).expect("15x15 is valid"),
            rule: Rule::Freestyle,
            memory_bytes: DEFAULT_MEMORY_BYTES,
            threads: 1,
            tt: None,
            vcf_cache: None,
            vct_cache: None,
        }
    }

    /// Starts a fresh empty game of the given size under the current rule (and starts building
    /// the rule's lookup tables on another thread, if no game has used them yet: the first
    /// search waits for them, on its own clock).
    pub fn new_game(&mut self, width: usize, height: usize) -> Result<(), BoardError> {
        self.game = Game::new(width, height, self.rule)?;
        crate::board::fast::prepare_tables_soon(self.rule);
        Ok(())
    }

    /// Changes the rule (and starts building its lookup tables on another thread, as
    /// [`Engine::new_game`] does). The current position is replayed under
    /// the new rule; when that fails (the game would have ended earlier under it, or a move is a
    /// foul), the board is cleared. Returns whether the position was kept.
    pub fn set_rule(&mut self, rule: Rule) -> bool {
        if rule == self.rule {
            return true;
        }
        self.rule = rule;
        let b = self.game.board();
        let (w, h) = (b.width(), b.height());
        let moves = self.game.moves().to_vec();
        let replayed = Game::from_moves(w, h, rule, &moves);
        let kept = replayed.is_ok();
        self.game = replayed.unwrap_or_else(|_| Game::new(w, h, rule).expect("size was valid"));
        self.clear_hash();
        crate::board::fast::prepare_tables_soon(rule);
        kept
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// The memory the whole process may use, in bytes (`INFO max_memory`; 0 = no cap, which is
    /// treated as [`DEFAULT_MEMORY_BYTES`]). The search sizes its tables from it.
    pub fn set_memory_limit(&mut self, bytes: u64) {
        self.memory_bytes = if bytes == 0 {
            DEFAULT_MEMORY_BYTES
        } else {
            bytes
        };
        self.drop_misfit_tables();
    }

    pub fn memory_limit(&self) -> u64 {
        self.memory_bytes
    }

    /// Transposition-table size for the memory limit: half of what is left after the rest of the
    /// process and the helper threads' extras, rounded down to a power of two by the table.
    fn tt_bytes(&self) -> u64 {
        let helpers = self.helper_bytes();
        let rest = self.memory_bytes.saturating_sub(NON_TT_BYTES + helpers);
        let t = (rest / 2).min(MAX_TT_BYTES);
        let want = (t / tt::ENTRY_BYTES).max(1024);
        (1u64 << (63 - want.leading_zeros())) * tt::ENTRY_BYTES
    }

    /// Memory set aside for the helper threads of the last search.
    fn helper_bytes(&self) -> u64 {
        self.threads.saturating_sub(1) as u64 * THREAD_BYTES
    }

    /// How many times the threat caches' slot counts are halved to fit the memory limit: 0 when
    /// it leaves room for everything [`NON_TT_BYTES`] counts, else enough for them to take at
    /// most half of what is left after [`BASE_BYTES`] and the helpers (at most
    /// [`MAX_CACHE_SHRINK`]).
    fn cache_shrink(&self) -> u32 {
        let spare = self
            .memory_bytes
            .saturating_sub(BASE_BYTES + self.helper_bytes())
            / 2;
        (0..MAX_CACHE_SHRINK)
            .find(|&k| THREAT_CACHE_BYTES >> k <= spare)
            .unwrap_or(MAX_CACHE_SHRINK)
    }

    /// Slots (as powers of two) of the VCF cache and of the VCT cache for the memory limit.
    fn cache_bits(&self) -> (u32, u32) {
        let k = self.cache_shrink();
        (VCF_CACHE_BITS - k, VCT_CACHE_BITS - k)
    }

    /// Nodes of the proof-number VCT's tree (knob `rvctpn`, see [`search::pnvct`]) for a VCT
    /// cache of `2^vct_bits` slots: as many bytes as that cache. The plan has room for it:
    /// at full size in the slack [`NON_TT_BYTES`] keeps beyond the base and the caches, and
    /// under a small limit the caches take at most half of what is left after the base, so a
    /// tree half their size still fits (test `memory_plan_fits_the_limit`).
    fn pn_tree_nodes(vct_bits: u32) -> usize {
        (16usize << vct_bits) / search::pnvct::NODE_BYTES
    }

    /// Drops the tables whose size no longer fits the memory limit and thread count (the next
    /// search allocates them afresh).
    fn drop_misfit_tables(&mut self) {
        if self.tt.as_ref().map(Tt::bytes) != Some(self.tt_bytes()) {
            self.tt = None;
        }
        let (vcf_bits, vct_bits) = self.cache_bits();
        if self.vcf_cache.as_ref().map(VcfCache::slots) != Some(1 << vcf_bits) {
            self.vcf_cache = None;
        }
        if self.vct_cache.as_ref().map(VctCache::slots) != Some(1 << vct_bits) {
            self.vct_cache = None;
        }
    }

    /// Allocates the transposition table and the threat-search caches now, sized as the next
    /// single-threaded search would size them, instead of on that search's first use. They are
    /// the same fresh, zeroed tables either way, so searches are unchanged; the bench calls this
    /// to keep the allocation (tens of MiB, zeroed) out of its timed section.
    pub fn allocate_tables(&mut self) {
        if self.threads == 1 {
            let tt_bytes = self.tt_bytes();
            self.tt.get_or_insert_with(|| Tt::new(tt_bytes));
        }
        let (vcf_bits, vct_bits) = self.cache_bits();
        self.vcf_cache
            .get_or_insert_with(|| VcfCache::new(vcf_bits));
        self.vct_cache
            .get_or_insert_with(|| VctCache::new(vct_bits));
    }

    /// Has the system back the pages of the transposition table and the VCF cache now
    /// (contents unchanged; call it between searches), as a game's first searches do by
    /// touching them: all of them, or as many as fit before `deadline` (see
    /// [`Tt::fault_in`]). The bench calls this after [`Engine::allocate_tables`] so that its
    /// timed section measures the search, not the first touches of a fresh table per position.
    pub fn fault_in_tables(&self, deadline: Option<Instant>) {
        fault_in_shared(self.tt.as_ref(), self.vcf_cache.as_ref(), deadline);
    }

    /// Empties the transposition tables (`yxhashclear`).
    pub fn clear_hash(&mut self) {
        if let Some(t) = self.tt.as_mut() {
            t.clear();
        }
        if let Some(c) = self.vcf_cache.as_mut() {
            c.clear();
        }
        if let Some(c) = self.vct_cache.as_mut() {
            c.clear();
        }
    }

    /// The current game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Plays a move for the side to move.
    pub fn play(&mut self, p: Pos) -> Result<(), BoardError> {
        self.game.play(p).map(|_| ())
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Result<Pos, BoardError> {
        self.game.undo()
    }

    /// Searches the current position for the side to move until a limit is reached or `stop` is
    /// set, reporting progress through `on_info`. Always returns a legal move when one exists.
    pub fn think(
        &mut self,
        limits: &Limits,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        self.think_excluding(limits, &limits.avoid, stop, on_info)
    }

    fn think_excluding(
        &mut self,
        limits: &Limits,
        exclude: &[Pos],
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> SearchResult {
        let now = Instant::now();
        let start = limits.started.filter(|&t| t <= now).unwrap_or(now);
        let moves_to_go = alphabeta::tuning().moves_to_go;
        let budget = search::time::budget_with(limits, self.empty_cells(), moves_to_go);
        let done = |best: Option<Pos>, value: Value, depth: Depth, nodes: u64, pv: Vec<Pos>| {
            SearchResult {
                best,
                value,
                depth,
                nodes,
                elapsed_ms: start.elapsed().as_millis() as u64,
                pv,
            }
        };
        if self.game.is_over() || self.game.board().is_full() {
            // Nothing to search: any empty cell (or none).
            let best = self
                .game
                .board()
                .empty_cells()
                .find(|p| !exclude.contains(p));
            return done(best, Value::ZERO, 0, 0, best.into_iter().collect());
        }
        // Strength 0: the greedy baseline player.
        if limits.strength == 0 && exclude.is_empty() {
            let best = search::greedy::best_move(&self.game);
            let r = done(best, Value::ZERO, 1, 1, best.into_iter().collect());
            on_info(&SearchInfo {
                depth: 1,
                seldepth: 1,
                nodes: 1,
                elapsed_ms: r.elapsed_ms,
                value: r.value,
                pv: r.pv.clone(),
            });
            return r;
        }
        let handicap = search::handicap(limits.strength);
        let max_depth = limits
            .max_depth
            .unwrap_or(alphabeta::MAX_PLY as Depth - 4)
            .clamp(1, alphabeta::MAX_PLY as Depth - 4)
            .min(handicap.max_depth);
        let max_nodes = limits.max_nodes.unwrap_or(u64::MAX).min(handicap.max_nodes);
        let threads = search_threads(limits.threads, max_nodes, self.memory_bytes);
        if threads != self.threads {
            self.threads = threads;
            self.drop_misfit_tables();
        }
        let (vcf_bits, vct_bits) = self.cache_bits();
        let tt_bytes = self.tt_bytes();
        let tt = self.tt.get_or_insert_with(|| Tt::new(tt_bytes));
        tt.new_search();
        let tt: &Tt = tt;
        let vcf_cache: &VcfCache = self
            .vcf_cache
            .get_or_insert_with(|| VcfCache::new(vcf_bits));
        // With helpers, back the shared tables with pages of their own before the threads probe
        // them: a first touch that reads (mapping the shared zero page) and then writes makes
        // the kernel flush the other running threads' TLBs, page by page, which cost the first
        // searches of a process most of their speed (README, "Measured"). Faulting in Gomocup's
        // 136 MiB takes 40-100 ms, so each search spends at most an eighth of its hard limit on
        // it, going on where the last one stopped, until both tables are done.
        if threads > 1 {
            let share = Duration::from_millis(budget.hard_ms.min(1 << 40) / FAULT_IN_DIVISOR);
            fault_in_shared(Some(tt), Some(vcf_cache), Some(start + share));
        }
        let board = FastBoard::from_game(&self.game);
        // The search stops a little before the hard limit so that the safety step (Step 3) still
        // runs when an iteration is cut off by the clock.
        let search_hard_ms = search::time::search_hard_ms(&budget);
        let ctl = alphabeta::Control {
            stop,
            start,
            hard_ms: search_hard_ms,
            max_nodes,
        };
        let mut s = alphabeta::Searcher::new(board, tt, vcf_cache, ctl);
        s.set_search_length(budget.hard_ms);
        s.root_exclude = exclude.iter().map(|&p| s.b.idx(p)).collect();
        let root_moves = s.root_moves();
        let to_pos = |s: &alphabeta::Searcher, v: &[usize]| -> Vec<Pos> {
            v.iter().map(|&i| s.b.pos(i)).collect()
        };
        // The answer when a threat search proves a win in `n` plies along `line`.
        let proven_win = |s: &alphabeta::Searcher, n: u32, line: &[usize]| {
            let pv = to_pos(s, line);
            done(
                pv.first().copied(),
                Value::mate_in(n),
                n as Depth,
                s.nodes,
                pv,
            )
        };
        // Always have an answer: the best-ordered legal move, else any legal cell.
        let fallback = root_moves
            .first()
            .map(|&i| s.b.pos(i))
            .or_else(|| search::greedy::any_move(&self.game, exclude));
        let mut best = (
            fallback,
            Value::ZERO,
            0,
            fallback.into_iter().collect::<Vec<_>>(),
        );
        // Step 1. A forced win by continuous fours ends the thinking at once (the shortest
        // one the budget finds: its first move, and the "win in N" reported).
        if exclude.is_empty() && budget.hard_ms > 0 {
            // A fifth of the time at most, so that a fruitless proof attempt leaves the search
            // room; with a win in hand, up to half of it to shorten the win.
            let target_ms = budget.soft_ms.min(budget.hard_ms);
            if let Some((n, line)) = s.root_vcf_shortest(
                search::ROOT_VCF_DEPTH,
                search::ROOT_VCF_NODES,
                target_ms / 5,
                target_ms / 2,
            ) {
                let r = proven_win(&s, n, &line);
                on_info(&info_of(&r, n as Depth));
                return r;
            }
        }
        // Step 1b. A forced win by continuous threes and fours, in a bounded share of the time.
        let vct_divisor = s.tuning().root_vct_divisor;
        if exclude.is_empty() && budget.hard_ms > 0 && handicap.strength >= 100 && vct_divisor > 0 {
            let vct_cache = self
                .vct_cache
                .get_or_insert_with(|| VctCache::new(vct_bits));
            let vct_ms = budget.soft_ms.min(budget.hard_ms) / vct_divisor;
            let ms = s.elapsed_ms().saturating_add(vct_ms).min(budget.hard_ms);
            let t = s.tuning();
            let clock = (budget.hard_ms != u64::MAX).then_some(vct_ms);
            let cap = root_vct_cap(clock, nodes_left(max_nodes, s.nodes), &t);
            let reach = (t.root_vct_depth, t.root_vct_threes, cap);
            let (mut found, vct_nodes) = root_vct(&mut s.b, vct_cache, start, ms, stop, reach);
            s.nodes += vct_nodes;
            // Experiment (knob `rvctwide`, off): what is left of the share goes to a wider
            // solver run (24 attacker moves, 5 threes) when the first one ended early.
            if found.is_none() && t.root_vct_wide && clock.is_some() && s.elapsed_ms() < ms {
                let wide = (24, 5, cap.saturating_sub(vct_nodes));
                let (f, n) = root_vct(&mut s.b, vct_cache, start, ms, stop, wide);
                s.nodes += n;
                found = f;
            }
            // Experiment (knob `rvctpn`, off): what is left of the share (and of the node
            // cap) goes to the proof-number solver, whose tree may take as many bytes as the
            // VCT cache.
            if found.is_none() && t.root_vct_pn > 0 && clock.is_some() && s.elapsed_ms() < ms {
                let tree = Self::pn_tree_nodes(vct_cache.slots().trailing_zeros());
                let threes = t.root_vct_pn.min(u8::MAX as u32) as u8;
                let reach = (threes, tree, cap.saturating_sub(vct_nodes));
                let (f, n) = root_pn_vct(&mut s.b, vct_cache, start, ms, stop, reach);
                s.nodes += n;
                found = f;
            }
            if let Some(win) = found {
                // Shortened as the root VCF's wins are, with what is left of the node cap and
                // up to half the target time.
                let target_ms = budget.soft_ms.min(budget.hard_ms);
                let until = (target_ms / 2).max(ms).min(budget.hard_ms);
                let left = cap.saturating_sub(vct_nodes);
                let reach = (t.root_vct_depth, t.root_vct_threes, left);
                let ((n, line), more) =
                    shorten_root_vct(&mut s.b, vct_cache, start, until, stop, reach, win);
                s.nodes += more;
                let r = proven_win(&s, n, &line);
                on_info(&info_of(&r, n as Depth));
                return r;
            }
        }
        // Step 1c. A quiet move that threatens a VCF which no reply stops (see
        // `search::vcf_threat`), in a share of the time like the VCT's.
        let t = s.tuning();
        if exclude.is_empty()
            && budget.hard_ms > 0
            && handicap.strength >= 100
            && t.root_vcf_threat_nodes > 0
        {
            let share = budget.soft_ms.min(budget.hard_ms) / search::ROOT_VCT_TIME_DIVISOR;
            let until = s.elapsed_ms().saturating_add(share).min(budget.hard_ms);
            let deadline = (budget.hard_ms != u64::MAX)
                .then(|| start.checked_add(std::time::Duration::from_millis(until)))
                .flatten()
                .map(|d| (d, stop));
            let nodes = t.root_vcf_threat_nodes.min(nodes_left(max_nodes, s.nodes));
            let mut vt = search::vcf_threat::VcfThreat::new(vcf_cache, nodes, deadline);
            let found = vt.solve(&mut s.b, t.root_vcf_threat_moves);
            log::debug!("root vcf threat: {:?} in {} nodes", found, vt.nodes);
            s.nodes += vt.nodes;
            if let Some((n, line)) = found {
                let r = proven_win(&s, n, &line);
                on_info(&info_of(&r, n as Depth));
                return r;
            }
        }
        // Step 1d. (Knob `vcfdef`: the nodes of each check; 0 = off, the default.) When the
        // opponent threatens a VCF, the root moves that leave it one are left out of the search,
        // in a quarter of the target time at most.
        if exclude.is_empty()
            && budget.hard_ms > 0
            && handicap.strength >= 100
            && t.root_vcf_defence_nodes > 0
            && root_moves.len() > 1
        {
            let until = s
                .elapsed_ms()
                .saturating_add(budget.soft_ms.min(budget.hard_ms) / 4)
                .min(search_hard_ms);
            let nodes = t.root_vcf_defence_nodes.min(nodes_left(max_nodes, s.nodes));
            let (t0, n0) = (s.elapsed_ms(), s.nodes);
            let excluded = s.exclude_vcf_losses(&root_moves, nodes, until);
            log::debug!(
                "root VCF defence: {excluded:?} in {} ms, {} nodes",
                s.elapsed_ms() - t0,
                s.nodes - n0
            );
            if excluded == alphabeta::VcfDefence::Undefended
                && t.root_vcf_defence_exclude
                && t.root_vcf_defence_instant
            {
                // No listed move stops it: a cell the threat-restricted list left out may (in
                // caro a far end of a three, say), and is then played, the best-scored first.
                let wide = wide_defences(&mut s.b, usize::MAX, &root_moves);
                for m in wide {
                    if s.elapsed_ms() >= until {
                        break;
                    }
                    if s.stops_vcf(m, nodes, until) {
                        let p = s.b.pos(m);
                        log::info!("{p} stops the opponent's VCF; no listed move does");
                        return done(Some(p), Value::ZERO, 1, s.nodes, vec![p]);
                    }
                }
            }
        }
        // Step 2. Iterative deepening on this thread, which decides the move and the time, with
        // `threads - 1` helpers searching the same root through the shared tables (Lazy SMP).
        let mut helper_nodes = 0;
        // The root moves left after Step 1d: the first is the fallback, and when it is the only
        // one it is played without a search.
        let open: Vec<usize> = root_moves
            .iter()
            .copied()
            .filter(|m| !s.root_exclude.contains(m))
            .collect();
        if let Some(&m) = open.first() {
            let p = s.b.pos(m);
            best = (Some(p), Value::ZERO, 0, vec![p]);
        }
        let instant = t.root_vcf_defence_instant;
        if open.len() > 1 || !exclude.is_empty() || (!instant && root_moves.len() > 1) {
            let shared = smp::Shared {
                board: s.b.clone(),
                tt,
                vcf_cache,
                start,
                hard_ms: search_hard_ms,
                max_depth,
                root_exclude: s.root_exclude.clone(),
                tuning: s.tuning(),
            };
            // The threat-safety check (knob `svct`) of each new best move: one after which the
            // opponent wins by threes and fours (a VCT too long for the search to see) is
            // excluded, and the iteration searched again without it, up to a few times.
            let safety_nodes = s.tuning().safety_vct_nodes.min(max_nodes);
            let safety = safety_nodes > 0 && handicap.strength >= 100 && exclude.is_empty();
            let safety_ms = budget.soft_ms.min(budget.hard_ms) / search::ROOT_VCT_TIME_DIVISOR;
            let safety_reach = (
                search::ROOT_VCT_DEPTH,
                search::ROOT_VCT_THREES,
                search::ROOT_VCT_NODES.min(safety_nodes),
            );
            // The root VCT's cache, allocated only when the check is on.
            let mut safety_cache = safety.then(|| {
                self.vct_cache
                    .get_or_insert_with(|| VctCache::new(vct_bits))
            });
            let mut checked: Vec<usize> = Vec::new();
            // The best moves the check has excluded (Step 1d's exclusions are not counted).
            let mut safety_excluded = 0;
            helper_nodes = smp::run(threads - 1, &shared, |link| {
                let mut prev: Option<i32> = None;
                let mut stable = 0;
                let mut depth = 1;
                while depth <= max_depth {
                    link.main_depth(depth);
                    let Some(it) = s.iterate(depth, prev) else {
                        break;
                    };
                    if it.pv.is_empty() {
                        break;
                    }
                    let m = it.pv[0];
                    let unchecked = !Value(it.value).is_mate()
                        && safety_excluded < search::SAFETY_VCT_TRIES
                        && !checked.contains(&m);
                    if let Some(cache) = safety_cache.as_deref_mut().filter(|_| unchecked) {
                        checked.push(m);
                        // Each check gets the root VCT's share of the time (a cut-off iteration's
                        // may reach into the time kept for the steps after the search).
                        let limit = if it.partial {
                            budget.hard_ms
                        } else {
                            search_hard_ms
                        };
                        let until = s.elapsed_ms().saturating_add(safety_ms).min(limit);
                        s.b.make(m);
                        let (found, n) =
                            root_vct(&mut s.b, cache, start, until, stop, safety_reach);
                        s.b.unmake();
                        s.nodes += n;
                        if found.is_some() {
                            log::info!("{} allows a VCT; searching without it", s.b.pos(m));
                            s.root_exclude.push(m);
                            safety_excluded += 1;
                            if it.partial {
                                break;
                            }
                            stable = 0;
                            continue;
                        }
                    }
                    let pv = to_pos(&s, &it.pv);
                    if Some(pv[0]) == best.0 {
                        stable += 1;
                    } else {
                        stable = 0;
                    }
                    best = (Some(pv[0]), Value(it.value), depth, pv);
                    let margin = s.tuning().drop_margin;
                    // Unclear: this iteration's value fell by at least the knob `dropext`.
                    let unclear = margin > 0
                        && !it.partial
                        && prev.is_some_and(|p| p.saturating_sub(it.value) >= margin);
                    prev = Some(it.value);
                    if it.partial {
                        break;
                    }
                    let r = done(best.0, best.1, depth, s.nodes, best.3.clone());
                    log::debug!(
                        "depth {depth} seldepth {} nodes {} time {} ms value {:?} pv {}",
                        s.seldepth,
                        s.nodes,
                        r.elapsed_ms,
                        r.value,
                        r.pv.iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(" ")
                    );
                    on_info(&SearchInfo {
                        depth,
                        seldepth: s.seldepth,
                        nodes: s.nodes + link.helper_nodes(),
                        elapsed_ms: r.elapsed_ms,
                        value: r.value,
                        pv: r.pv.clone(),
                    });
                    if Value(it.value).is_mate() {
                        break;
                    }
                    let elapsed = s.elapsed_ms();
                    let t = s.tuning();
                    let (stable_pct, next_pct) = search::time::stop_percentages(
                        &budget,
                        t.stable_stop_pct,
                        t.next_iteration_pct,
                        t.turn_bound_pct,
                    );
                    let target_pct = if unclear { t.drop_target_pct } else { 100 };
                    if search::time::should_stop_scaled(
                        &budget, elapsed, stable, stable_pct, next_pct, target_pct,
                    ) {
                        break;
                    }
                    depth += 1;
                }
            })
            .1;
        } else {
            best.2 = 1;
        }
        // Step 3. Safety: a best move that lets the opponent win by continuous fours is replaced
        // by the first ordered root move that does not. A forced win the search reports is
        // checked too (unless the move makes five): reductions can make the search miss the
        // opponent's fours, and a move after which the opponent wins by fours wins nothing. When
        // the search believes we are lost, the defence may be a cell its threat-restricted move
        // list left out (a VCF can be broken anywhere along its line), so then every legal cell
        // near the stones is tried too, best-scored first, while time lasts.
        s.set_hard_ms(budget.hard_ms);
        let losing = best.1.is_mate() && best.1 < Value::ZERO;
        let winning = best.1.is_mate() && best.1 > Value::ZERO;
        if s.tuning().root_safety && exclude.is_empty() && s.elapsed_ms() < budget.hard_ms {
            if let Some(b) = best.0 {
                let bi = s.b.idx(b);
                let five = s.b.is_five(bi, s.b.side_to_move());
                if !five && s.allows_vcf(bi, search::SAFETY_VCF_NODES) {
                    let mut alternatives: Vec<usize> = root_moves
                        .iter()
                        .copied()
                        .filter(|&m| m != bi && !s.root_exclude.contains(&m))
                        .take(search::SAFETY_MOVES)
                        .collect();
                    if losing {
                        alternatives.extend(wide_defences(&mut s.b, bi, &alternatives));
                    }
                    for m in alternatives {
                        if s.elapsed_ms() >= budget.hard_ms {
                            break;
                        }
                        if !s.allows_vcf(m, search::SAFETY_VCF_NODES) {
                            let p = s.b.pos(m);
                            log::info!("{b} allows a VCF; playing {p} instead");
                            // A refuted forced win says nothing about the new move's value.
                            let v = if winning { Value::ZERO } else { best.1 };
                            best = (Some(p), v, best.2, vec![p]);
                            break;
                        }
                    }
                }
            }
        }
        let mut result = done(best.0, best.1, best.2, s.nodes + helper_nodes, best.3);
        // Step 3. Variety at weak levels: a seeded pick among the first root moves.
        let pick = if result.value.is_mate() {
            None
        } else {
            handicap.pick(&root_moves, s.b.hash())
        };
        if let Some(pick) = pick {
            let p = s.b.pos(pick);
            log::info!("strength {}: varied move {p}", limits.strength);
            result.best = Some(p);
            result.pv = vec![p];
        }
        result
    }

    fn empty_cells(&self) -> usize {
        self.game.board().empty_count()
    }
}

/// The root VCT (see [`search::vct`]): the side to move's forced win by threes and fours, found
/// before `start + until_ms` within `(attacker moves, threes, nodes)`: `(plies, line)` if found,
/// and the nodes spent.
fn root_vct(
    b: &mut FastBoard,
    cache: &mut VctCache,
    start: Instant,
    until_ms: u64,
    stop: &AtomicBool,
    (depth, threes, max_nodes): (u32, u32, u64),
) -> (Option<(u32, Vec<usize>)>, u64) {
    let deadline = start.checked_add(std::time::Duration::from_millis(until_ms.min(1 << 40)));
    let mut vct = search::vct::Vct::new(cache, max_nodes, deadline.map(|d| (d, stop)));
    let mut line = Vec::new();
    let r = vct.solve(b, depth, threes, &mut line);
    log::debug!("root vct: {:?} in {} nodes", r, vct.nodes);
    (r.filter(|_| !line.is_empty()).map(|n| (n, line)), vct.nodes)
}

/// The proof-number VCT (see [`search::pnvct`]) of the side to move within `(threes, tree
/// nodes, nodes)`, until `start + until_ms`: `(plies, line)` if found, and the nodes spent.
fn root_pn_vct(
    b: &mut FastBoard,
    cache: &mut VctCache,
    start: Instant,
    until_ms: u64,
    stop: &AtomicBool,
    (threes, tree, max_nodes): (u8, usize, u64),
) -> (Option<(u32, Vec<usize>)>, u64) {
    let deadline = start.checked_add(std::time::Duration::from_millis(until_ms.min(1 << 40)));
    let mut vct = search::vct::Vct::new(cache, max_nodes, deadline.map(|d| (d, stop)));
    let mut pn = search::pnvct::PnVct::new(&mut vct, tree);
    pn.threes = threes;
    let mut line = Vec::new();
    let r = pn.solve(b, &mut line);
    log::debug!(
        "root pn vct: {:?} in {} expansions, {} tree nodes",
        r,
        pn.expansions,
        pn.tree_nodes()
    );
    drop(pn);
    (r.filter(|_| !line.is_empty()).map(|n| (n, line)), vct.nodes)
}

/// Shortens the root VCT's win `win` (plies, line): the solver is asked again for a win within
/// fewer and fewer attacker moves, starting below what the win's plies suggest, until it finds
/// none, keeping the shortest win found, within `max_nodes` in all and until `until_ms` after
/// `start`. (A VCT of `n` plies may use fewer than (n - 1) / 2 attacker moves of the solver's
/// count, since forced last moves after a threat without relevant replies are not counted, so
/// a depth that finds no shorter win does not end the search; one that finds none does.)
/// Returns the shortest win found and the nodes spent.
fn shorten_root_vct(
    b: &mut FastBoard,
    cache: &mut VctCache,
    start: Instant,
    until_ms: u64,
    stop: &AtomicBool,
    (depth, threes, max_nodes): (u32, u32, u64),
    win: (u32, Vec<usize>),
) -> ((u32, Vec<usize>), u64) {
    let mut moves = (win.0.saturating_sub(1) / 2).min(depth);
    let mut best = win;
    let mut spent = 0u64;
    loop {
        let left = max_nodes.saturating_sub(spent);
        if moves < 2 || left == 0 {
            return (best, spent);
        }
        moves -= 1;
        let (found, n) = root_vct(b, cache, start, until_ms, stop, (moves, threes, left));
        spent += n;
        match found {
            Some(w) if w.0 < best.0 => best = w,
            Some(_) => {}
            None => return (best, spent),
        }
    }
}

/// The nodes a search capped at `max_nodes` (`u64::MAX`: no cap) may still spend after `spent`.
fn nodes_left(max_nodes: u64, spent: u64) -> u64 {
    match max_nodes {
        u64::MAX => u64::MAX,
        m => m.saturating_sub(spent),
    }
}

/// The root VCT's node cap. Under a clock (`clock_share_ms`: its share of the time) the clock
/// bounds the solver as well, so the cap grows with the share (knob `rvctrate`, see
/// [`search::ROOT_VCT_NODES_PER_MS`]) between [`search::ROOT_VCT_NODES`] and `rvctn`; searches
/// capped by nodes (`nodes_left` is then finite) or by nothing keep the fixed cap, so that they
/// replay exactly.
fn root_vct_cap(
    clock_share_ms: Option<u64>,
    nodes_left: u64,
    t: &search::alphabeta::Tuning,
) -> u64 {
    match clock_share_ms {
        Some(ms) if nodes_left == u64::MAX => ms
            .saturating_mul(t.root_vct_rate)
            .max(search::ROOT_VCT_NODES)
            .min(t.root_vct_nodes),
        _ => search::ROOT_VCT_NODES.min(nodes_left),
    }
}

/// Faults in the hash table, then the VCF cache, until `deadline` (see [`Tt::fault_in`]).
fn fault_in_shared(tt: Option<&Tt>, vcf_cache: Option<&VcfCache>, deadline: Option<Instant>) {
    if tt.is_none_or(|t| t.fault_in(deadline)) {
        if let Some(c) = vcf_cache {
            c.fault_in(deadline);
        }
    }
}

/// The threads a search runs on: `requested` (0 counts as 1) capped at [`MAX_THREADS`], the
/// machine's cores and what `memory_bytes` holds ([`threads_for_memory`]); one when nodes are
/// limited (node counts then decide, and must replay).
fn search_threads(requested: usize, max_nodes: u64, memory_bytes: u64) -> usize {
    if max_nodes != u64::MAX || requested <= 1 {
        return 1;
    }
    let threads = requested
        .min(max_search_threads())
        .min(threads_for_memory(memory_bytes));
    if threads < requested {
        log::info!(
            "{requested} threads asked, {threads} used (at most {MAX_THREADS}, the cores and \
             what the memory limit holds)"
        );
    }
    threads
}

/// The least memory limit the process keeps to with `threads` search threads: one helper fits
/// in [`MIN_MEMORY_BYTES`] (the process peaks at about 13 MiB with two threads under it), each
/// further one adds [`THREAD_BYTES`].
pub fn min_memory_bytes(threads: usize) -> u64 {
    MIN_MEMORY_BYTES + threads.saturating_sub(2) as u64 * THREAD_BYTES
}

/// The most search threads a memory limit holds ([`min_memory_bytes`]): 2 at 16 MiB, one more
/// per 2 MiB above; 1 under 16 MiB, where no thread count keeps to the limit.
pub fn threads_for_memory(memory_bytes: u64) -> usize {
    match memory_bytes.checked_sub(MIN_MEMORY_BYTES) {
        None => 1,
        Some(above) => 2 + (above / THREAD_BYTES).min(MAX_THREADS as u64 - 2) as usize,
    }
}

/// The most threads a search runs on here: [`MAX_THREADS`], and no more than the machine's cores.
pub fn max_search_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    MAX_THREADS.min(cores)
}

/// Every legal empty cell within two of a stone, other than `best` and `skip`, best first by the
/// sum of both colours' cell scores (ties by index, so the order is deterministic).
fn wide_defences(b: &mut FastBoard, best: usize, skip: &[usize]) -> Vec<usize> {
    let me = b.side_to_move();
    let cells: Vec<usize> = b
        .area(2)
        .filter(|&i| i != best && b.is_empty(i) && b.is_near(i) && !skip.contains(&i))
        .collect();
    let legal: Vec<usize> = cells.into_iter().filter(|&i| b.is_legal(i)).collect();
    let mut scored: Vec<(i32, usize)> = legal
        .into_iter()
        .map(|i| (b.cell_score(i, me) + b.cell_score(i, me.opponent()), i))
        .collect();
    scored.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}

fn info_of(r: &SearchResult, depth: Depth) -> SearchInfo {
    SearchInfo {
        depth,
        seldepth: depth,
        nodes: r.nodes,
        elapsed_ms: r.elapsed_ms,
        value: r.value,
        pv: r.pv.clone(),
    }
}

impl Engine {
    /// Multi-PV analysis (`yxnbest N`): up to `n` best moves, best first, each with its own value
    /// and principal variation; each later search excludes the earlier best moves at the root.
    pub fn think_nbest(
        &mut self,
        limits: &Limits,
        n: usize,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&SearchInfo),
    ) -> Vec<SearchResult> {
        let n = n.clamp(1, 64);
        let mut per = limits.clone();
        // Each search has its own share of the time, from its own start.
        per.started = None;
        per.turn_time_ms = limits.turn_time_ms.map(|t| t / n as u64);
        per.time_left_ms = limits.time_left_ms.map(|t| {
            if t >= search::time::UNLIMITED_MS {
                t
            } else {
                t / n as i64
            }
        });
        let mut out: Vec<SearchResult> = Vec::new();
        let mut exclude: Vec<Pos> = limits.avoid.clone();
        for _ in 0..n {
            if stop.load(Ordering::Relaxed) && !out.is_empty() {
                break;
            }
            let r = self.think_excluding(&per, &exclude, stop, on_info);
            match r.best {
                Some(b) if !exclude.contains(&b) && self.game.board().is_empty(b) => {
                    exclude.push(b);
                    out.push(r);
                }
                _ => break,
            }
        }
        out.sort_by_key(|r| std::cmp::Reverse(r.value));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The threat caches keep their full size whenever the memory limit leaves room for
    /// everything [`NON_TT_BYTES`] counts, and shrink under small limits so that the tables
    /// together stay within half of what is left after the process's base; a search then
    /// allocates them at that size, and a larger limit brings the full ones back.
    #[test]
    fn threat_caches_fit_small_memory_limits() {
        const MIB: u64 = 1 << 20;
        let mut e = Engine::new();
        assert_eq!(e.cache_bits(), (VCF_CACHE_BITS, VCT_CACHE_BITS));
        for threads in [1, 2, 4] {
            e.threads = threads;
            let helpers = (threads as u64 - 1) * THREAD_BYTES;
            e.set_memory_limit(NON_TT_BYTES + helpers);
            assert_eq!(e.cache_shrink(), 0, "{threads} threads");
            for mib in [1, 12, 16, 20, 24, 32, 40] {
                e.set_memory_limit(mib * MIB);
                let k = e.cache_shrink();
                let spare = (mib * MIB).saturating_sub(BASE_BYTES + helpers) / 2;
                assert!(
                    k == MAX_CACHE_SHRINK || THREAT_CACHE_BYTES >> k <= spare,
                    "{mib} MiB, {threads} threads: shrink {k}"
                );
                assert!(k == 0 || THREAT_CACHE_BYTES >> (k - 1) > spare);
            }
        }
        e.threads = 1;
        e.set_memory_limit(16 * MIB);
        e.new_game(15, 15).unwrap();
        e.play(Pos::new(7, 7)).unwrap();
        let limits = Limits {
            max_depth: Some(3),
            ..Limits::default()
        };
        e.think(&limits, &AtomicBool::new(false), &mut |_| {});
        let (vcf, vct) = e.cache_bits();
        assert!(vcf < VCF_CACHE_BITS);
        assert_eq!(e.vcf_cache.as_ref().map(VcfCache::slots), Some(1 << vcf));
        assert_eq!(e.vct_cache.as_ref().map(VctCache::slots), Some(1 << vct));
        let tables = e.tt.as_ref().unwrap().bytes() + threat_cache_bytes(vcf, vct);
        assert!(
            tables <= (16 * MIB - BASE_BYTES) / 2 + (1 << 16),
            "{tables}"
        );
        e.set_memory_limit(0);
        assert!(e.vcf_cache.is_none() && e.vct_cache.is_none());
        e.think(&limits, &AtomicBool::new(false), &mut |_| {});
        assert_eq!(
            e.vcf_cache.as_ref().map(VcfCache::slots),
            Some(1 << VCF_CACHE_BITS)
        );
    }

    /// Everything the search allocates fits `max_memory` (above the process's base): the
    /// transposition table, the helpers' extras, the threat caches and the proof-number
    /// stage's tree, which is not counted anywhere else.
    #[test]
    fn memory_plan_fits_the_limit() {
        const MIB: u64 = 1 << 20;
        let mut e = Engine::new();
        for threads in [1, 2, 4, 8, 64] {
            for mib in [
                16, 20, 24, 32, 40, 48, 56, 64, 100, 128, 256, 350, 1024, 4096,
            ] {
                e.set_memory_limit(mib * MIB);
                e.threads = threads.min(threads_for_memory(mib * MIB));
                let (vcf, vct) = e.cache_bits();
                let tree = (Engine::pn_tree_nodes(vct) * search::pnvct::NODE_BYTES) as u64;
                let caches = threat_cache_bytes(vcf, vct);
                let total = BASE_BYTES + e.helper_bytes() + e.tt_bytes() + caches + tree;
                assert!(total <= mib * MIB, "{mib} MiB, {threads} threads: {total}");
            }
        }
        assert_eq!(threads_for_memory(15 * MIB), 1);
        assert_eq!(threads_for_memory(16 * MIB), 2);
        assert_eq!(threads_for_memory(18 * MIB - 1), 2);
        assert_eq!(threads_for_memory(18 * MIB), 3);
        assert_eq!(threads_for_memory(64 * MIB), 26);
        assert_eq!(threads_for_memory(0), 1);
        for t in 1..=MAX_THREADS {
            assert!(threads_for_memory(min_memory_bytes(t)) >= t);
            assert!(t == 1 || threads_for_memory(min_memory_bytes(t) - 1) < t);
        }
        assert_eq!(threads_for_memory(u64::MAX), MAX_THREADS);
    }

    /// The root VCT's wins are shortened: in the bench's second 20x20 position the solver's
    /// first win is longer than the one the engine reports, which is the shortest the solver
    /// finds at any depth.
    #[test]
    fn root_vct_wins_are_shortened() {
        let mut e = Engine::new();
        e.set_memory_limit(32 << 20);
        e.new_game(20, 20).unwrap();
        for m in crate::pos::parse_algebraic("j10j11k10i10k12l11k11k9").unwrap() {
            e.play(m).unwrap();
        }
        let stop = AtomicBool::new(false);
        let game = e.game().clone();
        let solve = |depth: u32| {
            let mut b = FastBoard::from_game(&game);
            let mut cache = VctCache::new(16);
            let reach = (depth, search::ROOT_VCT_THREES, search::ROOT_VCT_NODES);
            let (found, _) = root_vct(&mut b, &mut cache, Instant::now(), u64::MAX, &stop, reach);
            found.map(|(n, _)| n)
        };
        let first = solve(search::ROOT_VCT_DEPTH).expect("the position has a VCT");
        let limits = Limits {
            max_depth: Some(10),
            ..Limits::default()
        };
        let r = e.think(&limits, &stop, &mut |_| {});
        let n = r.value.mate_plies().expect("a proven win");
        assert!(
            n < first,
            "reported {n} plies, the first win found has {first}"
        );
        assert_eq!(r.pv.len() as u32 % 2, 1, "{:?}", r.pv);
        let shortest = (1..=search::ROOT_VCT_DEPTH).filter_map(solve).min();
        assert_eq!(Some(n), shortest);
    }

    /// The proof-number stage (knob `rvctpn`) reaches a win the root VCT's usual reach misses:
    /// black to move in a freestyle position of a game of Rapfi against itself (twelve stones
    /// after a random opening).
    #[test]
    fn proof_number_stage_finds_a_win_beyond_the_root_vct() {
        let line = "0,0, 0,-2, 0,1, -1,1, 1,2, -1,0, 0,2, 0,3, -1,2, 2,2, -2,3, 1,0";
        let mut e = Engine::new();
        e.new_game(15, 15).unwrap();
        for m in crate::pos::parse_offset_line(line, 15, 15).unwrap() {
            e.play(m).unwrap();
        }
        let mut b = FastBoard::from_game(e.game());
        let before = b.hash();
        let stop = AtomicBool::new(false);
        let mut cache = VctCache::new(16);
        let reach = (
            search::ROOT_VCT_DEPTH,
            search::ROOT_VCT_THREES,
            search::ROOT_VCT_NODES,
        );
        let (dfs, _) = root_vct(&mut b, &mut cache, Instant::now(), u64::MAX, &stop, reach);
        assert!(dfs.is_none(), "the usual reach finds {dfs:?}");
        let reach = (5, 1 << 20, u64::MAX);
        let (pn, nodes) = root_pn_vct(&mut b, &mut cache, Instant::now(), u64::MAX, &stop, reach);
        let (n, line) = pn.expect("a win by threats");
        assert_eq!(n % 2, 1, "the attacker's five ends it");
        assert!(n > 2 * search::ROOT_VCT_THREES + 1 && nodes > 0);
        assert!(b.is_legal(line[0]));
        assert_eq!(b.hash(), before);
    }

    #[test]
    fn root_vct_cap_grows_with_the_time_share_only_under_a_clock() {
        let t = search::alphabeta::Tuning::DEFAULT;
        // 1 s a move gives the root VCT about 112 ms.
        assert_eq!(root_vct_cap(Some(112), u64::MAX, &t), 224_000);
        // Short shares keep the old fixed cap; long ones stop at the ceiling.
        assert_eq!(root_vct_cap(Some(10), u64::MAX, &t), search::ROOT_VCT_NODES);
        assert_eq!(
            root_vct_cap(Some(3_600_000), u64::MAX, &t),
            search::ROOT_VCT_CLOCK_NODES
        );
        // No clock, or a node limit: the fixed cap (at most the nodes left), so they replay.
        assert_eq!(root_vct_cap(None, u64::MAX, &t), search::ROOT_VCT_NODES);
        assert_eq!(
            root_vct_cap(Some(1000), 5_000_000, &t),
            search::ROOT_VCT_NODES
        );
        assert_eq!(root_vct_cap(Some(1000), 1_000, &t), 1_000);
        // The knobs: `rvctrate` per millisecond, `rvctn` the ceiling.
        let k = search::alphabeta::Tuning::parse("rvctrate=100000,rvctn=3000000").unwrap();
        assert_eq!(root_vct_cap(Some(20), u64::MAX, &k), 2_000_000);
        assert_eq!(root_vct_cap(Some(112), u64::MAX, &k), 3_000_000);
    }

    /// A move's clock runs from when its request arrived: a search whose turn is already used up
    /// (the request came 30 s ago, 10 s a move) still answers with a legal move, and at once
    /// instead of after its own 10 s; the same limits from now search, and report a depth.
    #[test]
    fn the_clock_runs_from_when_the_request_arrived() {
        let stop = AtomicBool::new(false);
        let mut e = Engine::new();
        e.set_memory_limit(16 << 20);
        e.new_game(15, 15).unwrap();
        for p in [Pos::new(7, 7), Pos::new(8, 8), Pos::new(7, 8)] {
            e.play(p).unwrap();
        }
        let limits = |started| Limits {
            turn_time_ms: Some(10_000),
            max_depth: Some(6),
            started,
            ..Limits::default()
        };
        let late = Instant::now().checked_sub(Duration::from_secs(30));
        let Some(late) = late else { return };
        let r = e.think(&limits(Some(late)), &stop, &mut |_| {});
        let best = r.best.expect("a move");
        assert!(e.game().board().is_empty(best));
        assert!(r.elapsed_ms >= 30_000, "{}", r.elapsed_ms);
        assert!(
            r.depth <= 1,
            "searched to depth {} with no time left",
            r.depth
        );
        let r = e.think(&limits(None), &stop, &mut |_| {});
        assert!(r.elapsed_ms < 10_000 && r.depth >= 2, "{r:?}");
    }

    /// A search with helpers backs the shared tables with pages of their own before the helpers
    /// start, within its share of the time (and only then: one thread keeps the lazy first
    /// touches); clearing the hash gives fresh tables that are faulted in again by the next
    /// search with helpers.
    #[test]
    fn searches_with_helpers_fault_the_shared_tables_in_first() {
        let stop = AtomicBool::new(false);
        let search_in = |e: &mut Engine, threads: usize, turn_time_ms: Option<u64>| {
            let limits = Limits {
                max_depth: Some(3),
                turn_time_ms,
                threads,
                ..Limits::default()
            };
            e.think(&limits, &stop, &mut |_| {});
        };
        let search = |e: &mut Engine, threads: usize| search_in(e, threads, None);
        if search_threads(2, u64::MAX, 64 << 20) < 2 {
            return; // a one-core machine never runs helpers
        }
        let mut e = Engine::new();
        e.set_memory_limit(64 << 20);
        e.new_game(15, 15).unwrap();
        e.play(Pos::new(7, 7)).unwrap();
        search(&mut e, 1);
        let faulted = |e: &Engine| {
            (
                e.tt.as_ref().is_some_and(Tt::is_faulted),
                e.vcf_cache.as_ref().is_some_and(VcfCache::is_faulted),
            )
        };
        assert_eq!(faulted(&e), (false, false));
        search(&mut e, 2);
        assert_eq!(faulted(&e), (true, true));
        e.clear_hash();
        assert_eq!(faulted(&e), (false, false));
        // No time to spare (an answer at once): nothing is faulted in.
        search_in(&mut e, 2, Some(0));
        assert_eq!(faulted(&e), (false, false));
        search(&mut e, 2);
        assert_eq!(faulted(&e), (true, true));
    }
}
