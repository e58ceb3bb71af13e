//! Lazy SMP: helper threads search the same root as the main thread, each with its own board,
//! killers and history, sharing the transposition table and the VCF failure cache (both
//! lock-free). Helpers only fill the shared tables; the main thread's iterative deepening decides
//! the move and the time. Helpers keep one or two plies ahead of the main thread, so the entries
//! they leave are deep enough to cut the main thread's next iteration short.
//!
//! Helpers live inside [`run`]: they stop when the main thread's work returns (or unwinds) and
//! are joined before [`run`] returns, so no thread outlives a search.

use super::alphabeta::{set_tuning, Control, Searcher, Tuning};
use super::tt::Tt;
use super::vcf::VcfCache;
use crate::board::fast::{FastBoard, Idx};
use crate::types::Value;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::Instant;

/// Stack reserved for each helper thread, in bytes (address space: pages are committed as the
/// recursion touches them, some tens of KiB in practice).
pub const HELPER_STACK_BYTES: usize = 64 * 1024 * 1024;

/// What every helper starts from.
pub struct Shared<'a> {
    /// The root position.
    pub board: FastBoard,
    pub tt: &'a Tt,
    pub vcf_cache: &'a VcfCache,
    /// The search's start (the main thread's clock).
    pub start: Instant,
    /// Helpers also stop on their own this many ms after `start`.
    pub hard_ms: u64,
    pub max_depth: i32,
    /// Root moves not to consider (multi-PV).
    pub root_exclude: Vec<Idx>,
    /// The main thread's search knobs (they are per thread, see [`set_tuning`]).
    pub tuning: Tuning,
}

/// What the main thread and its helpers tell each other while they search.
#[derive(Default)]
pub struct Link {
    helper_nodes: AtomicU64,
    main_depth: AtomicI32,
}

impl Link {
    /// Nodes the helpers have searched so far (updated after each of their iterations).
    pub fn helper_nodes(&self) -> u64 {
        self.helper_nodes.load(Ordering::Relaxed)
    }

    /// The main thread announces the depth of the iteration it starts.
    pub fn main_depth(&self, depth: i32) {
        self.main_depth.store(depth, Ordering::Relaxed);
    }
}

/// Sets the flag when dropped: helpers stop even if the main thread's work unwinds.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `main` on this thread while `helpers` helper threads search `shared`'s root; stops and
/// joins them when `main` returns. Returns `main`'s result and the helpers' node total. With 0
/// helpers `main` simply runs (no thread is started). A helper that cannot be started is logged
/// and left out; one that panics is logged, never propagated.
pub fn run<R>(helpers: usize, shared: &Shared, main: impl FnOnce(&Link) -> R) -> (R, u64) {
    let link = Link::default();
    if helpers == 0 {
        let r = main(&link);
        return (r, 0);
    }
    let stop = AtomicBool::new(false);
    let r = std::thread::scope(|scope| {
        let guard = StopOnDrop(&stop);
        let (stop, link) = (&stop, &link);
        let mut handles = Vec::with_capacity(helpers);
        for id in 1..=helpers {
            let spawned = std::thread::Builder::new()
                .name(format!("rensa-helper-{id}"))
                .stack_size(HELPER_STACK_BYTES)
                .spawn_scoped(scope, move || helper(id, shared, stop, link));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    log::warn!("could not start helper thread {id}: {e}");
                    break;
                }
            }
        }
        let r = main(link);
        drop(guard);
        for h in handles {
            if h.join().is_err() {
                log::error!("a helper thread panicked; its work is lost");
            }
        }
        r
    });
    (r, link.helper_nodes())
}

/// One helper: iterative deepening from depth 1 or 2 (by `id`), never behind the main thread.
fn helper(id: usize, sh: &Shared, stop: &AtomicBool, link: &Link) {
    set_tuning(sh.tuning);
    let ctl = Control {
        stop,
        start: sh.start,
        hard_ms: sh.hard_ms,
        max_nodes: u64::MAX,
    };
    let mut s = Searcher::new(sh.board.clone(), sh.tt, sh.vcf_cache, ctl);
    s.root_exclude = sh.root_exclude.clone();
    let ahead = 1 + id.is_multiple_of(2) as i32;
    let mut reported = 0;
    let mut prev = None;
    let mut depth = 1 + (id % 2) as i32;
    while depth <= sh.max_depth && !stop.load(Ordering::Relaxed) {
        let it = s.iterate(depth, prev);
        link.helper_nodes
            .fetch_add(s.nodes - reported, Ordering::Relaxed);
        reported = s.nodes;
        let Some(it) = it else {
            break;
        };
        if it.partial || it.pv.is_empty() || Value(it.value).is_mate() {
            break;
        }
        prev = Some(it.value);
        depth = (depth + 1).max(link.main_depth.load(Ordering::Relaxed) + ahead);
    }
    log::debug!("helper {id}: {} nodes, last depth {depth}", s.nodes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_without_helpers_just_runs_main() {
        let tt = Tt::new(1 << 16);
        let cache = VcfCache::new(10);
        let game = crate::board::Game::new(15, 15, crate::types::Rule::Freestyle).unwrap();
        let shared = Shared {
            board: FastBoard::from_game(&game),
            tt: &tt,
            vcf_cache: &cache,
            start: Instant::now(),
            hard_ms: 0,
            max_depth: 1,
            root_exclude: Vec::new(),
            tuning: Tuning::DEFAULT,
        };
        let (r, n) = run(0, &shared, |link| link.helper_nodes() + 7);
        assert_eq!((r, n), (7, 0));
    }

    #[test]
    fn helpers_stop_when_main_returns_and_count_their_nodes() {
        let tt = Tt::new(1 << 20);
        let cache = VcfCache::new(12);
        let mut game = crate::board::Game::new(15, 15, crate::types::Rule::Freestyle).unwrap();
        for (x, y) in [(7, 7), (8, 8), (7, 8), (8, 7), (6, 9)] {
            game.play(crate::pos::Pos::new(x, y)).unwrap();
        }
        let shared = Shared {
            board: FastBoard::from_game(&game),
            tt: &tt,
            vcf_cache: &cache,
            start: Instant::now(),
            // Only the main thread's return may stop them within the test's lifetime.
            hard_ms: u64::MAX,
            max_depth: 90,
            root_exclude: Vec::new(),
            tuning: Tuning::DEFAULT,
        };
        let t = Instant::now();
        let (seen, total) = run(1, &shared, |link| {
            // Wait (bounded) until the helper has reported a finished iteration.
            while link.helper_nodes() == 0 && t.elapsed().as_secs() < 10 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            link.helper_nodes()
        });
        assert!(seen > 0, "the helper searched");
        assert!(total >= seen);
        assert!(t.elapsed().as_secs() < 20, "helpers stopped promptly");
    }
}
