//! Move search: the engine's thinking. Owns time management, the greedy baseline player, threat
//! search (VCF), alpha-beta with its transposition table, and playing-strength handicaps. Never
//! prints.

pub mod alphabeta;
pub mod greedy;
pub mod pnvct;
pub mod policy;
pub mod smp;
pub mod time;
pub mod tt;
pub mod vcf;
pub mod vcf_threat;
pub mod vct;
pub mod zeroed;

use crate::board::fast::Idx;
use crate::types::Depth;
use crate::zobrist::SplitMix64;

/// Attacker moves the root VCF may use. Real games never come near 30 (in 3 167 positions of
/// renju and freestyle self-play games the VCF answered alike, with the same node counts, at 30
/// and 120), but composed problems do: two renju problems have VCFs of 161 and 175 plies, which
/// a cap of 30 missed (and, the cache holding failures per depth, searched 30-150 thousand nodes
/// for), while 120 finds them in about 15 000. The node cap and the time bound the search
/// either way.
pub const ROOT_VCF_DEPTH: u32 = 120;
/// Node cap of the root's VCF-threat search (see [`vcf_threat`]; knob `vcft`, 0 = off).
pub const ROOT_VCF_THREAT_NODES: u64 = 100_000;
/// Quiet moves the root's VCF-threat search tries, best cell scores first (knob `vcftn`).
pub const ROOT_VCF_THREAT_MOVES: usize = 24;
/// Node cap of the root VCF.
pub const ROOT_VCF_NODES: u64 = 200_000;
/// Attacker moves (fours and threes) the root VCT may use.
pub const ROOT_VCT_DEPTH: u32 = 16;
/// Threes the root VCT may use (it deepens on threes: 1, 2, ...).
pub const ROOT_VCT_THREES: u32 = 3;
/// Node cap of the root VCT when no clock bounds the search (bench, `max_node`, no time limit),
/// so that such searches replay exactly.
pub const ROOT_VCT_NODES: u64 = 200_000;
/// Under a clock the root VCT's node cap grows with its share of the time: this many nodes per
/// millisecond of the share (the solver makes 1.3 to 3 million a second), but never below
/// [`ROOT_VCT_NODES`] (so at 1 s a move it is about what the fixed cap was) and never above
/// [`ROOT_VCT_CLOCK_NODES`]. A fixed cap of 200 000 made its reach the same at 30 s a move as
/// at 1 s.
pub const ROOT_VCT_NODES_PER_MS: u64 = 2_000;
/// Most nodes of the root VCT under a clock (3 to 8 s of the solver): it keeps a GUI's
/// unbounded analysis from waiting long for its first iteration.
pub const ROOT_VCT_CLOCK_NODES: u64 = 10_000_000;
/// The root VCT gets at most this fraction (1/n) of the soft time budget.
pub const ROOT_VCT_TIME_DIVISOR: u64 = 8;
/// Node cap of each opponent-VCF check of the root safety step.
pub const SAFETY_VCF_NODES: u64 = 20_000;
/// A node cap for each check of the root's defence against an opponent VCF (knob `vcfdef`;
/// off by default).
pub const ROOT_VCF_DEFENCE_NODES: u64 = 20_000;
/// A node cap for the opponent-VCT check of each new best move (knob `svct`; off by default).
pub const SAFETY_VCT_NODES: u64 = 200_000;
/// Best moves the threat-safety check may exclude in one search; then it checks no more.
pub const SAFETY_VCT_TRIES: usize = 3;
/// Root moves the safety step tries instead of a best move that allows an opponent VCF.
pub const SAFETY_MOVES: usize = 8;
/// Mixed into the position hash to seed weak-level variety.
pub const VARIETY_SEED: u64 = 0x7A71_E7E5;

/// Limits implied by a playing strength (`INFO strength`, 0..=100).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handicap {
    pub strength: u32,
    pub max_depth: Depth,
    pub max_nodes: u64,
}

/// The handicap of `strength`: full strength at 100; below, shallower and smaller searches.
pub fn handicap(strength: u32) -> Handicap {
    if strength >= 100 {
        return Handicap {
            strength,
            max_depth: Depth::MAX,
            max_nodes: u64::MAX,
        };
    }
    let tenth = strength / 10;
    Handicap {
        strength,
        max_depth: 1 + tenth as Depth,
        max_nodes: 1000u64 << tenth.min(20),
    }
}

impl Handicap {
    /// Below strength 50, sometimes (more often when weaker) one of the first three root moves
    /// instead of the best; seeded from the position so games replay.
    pub fn pick(&self, root_moves: &[Idx], hash: u64) -> Option<Idx> {
        if self.strength >= 50 || root_moves.len() < 2 {
            return None;
        }
        let seed = hash ^ VARIETY_SEED;
        let mut rng = SplitMix64(seed);
        let chance = (50 - self.strength) as u64;
        if rng.next_u64() % 100 >= chance {
            return None;
        }
        log::info!("variety seed {seed:#x}");
        let k = root_moves.len().min(3);
        Some(root_moves[(rng.next_u64() % k as u64) as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alphabeta::Tuning;

    #[test]
    fn handicap_grows_with_strength() {
        assert_eq!(handicap(100).max_depth, Depth::MAX);
        let weak = handicap(10);
        let mid = handicap(60);
        assert!(weak.max_depth < mid.max_depth && weak.max_nodes < mid.max_nodes);
        // Variety only below 50, and always one of the offered moves.
        assert_eq!(handicap(60).pick(&[1, 2, 3], 42), None);
        let picks: Vec<Option<Idx>> = (0..200u64)
            .map(|h| handicap(0).pick(&[7, 8, 9], h))
            .collect();
        assert!(picks.iter().any(|p| p.is_some()));
        assert!(picks.iter().flatten().all(|p| [7, 8, 9].contains(p)));
        assert_eq!(handicap(0).pick(&[7], 1), None);
    }

    #[test]
    fn tuning_parses_knobs() {
        assert_eq!(Tuning::parse(""), Some(Tuning::DEFAULT));
        let t = Tuning::parse("limit=0,vcf=1,lmr=0,init=16").unwrap();
        assert_eq!(
            (t.non_pv_move_limit, t.leaf_vcf, t.lmr, t.initiative_16ths),
            (0, true, false, 16)
        );
        let t = Tuning::parse("qwin=1,lmp=3,lmrlog=18,nextpct=80,stablepct=70").unwrap();
        assert!(t.quick_win);
        assert_eq!((t.lmp_base, t.lmr_log_div), (3, 18));
        assert_eq!((t.next_iteration_pct, t.stable_stop_pct), (80, 70));
        let t = Tuning::parse("rfp=80,rfpdepth=4,fut=30,futdepth=2,iir=5").unwrap();
        assert_eq!(
            (t.rfp, t.rfp_depth, t.fut, t.fut_depth, t.iir),
            (80, 4, 30, 2, 5)
        );
        let t = Tuning::parse("hmal=1,lmrh=300,kr=1,lext=4,imprfp=1,implmp=1").unwrap();
        assert!(t.history_malus && t.killer_no_reduce && t.improving_rfp && t.improving_lmp);
        assert_eq!((t.lmr_history_div, t.leaf_ext), (300, 4));
        let t = Tuning::parse("dext=2,dextpv=1").unwrap();
        assert_eq!((t.defence_ext, t.defence_ext_pv), (2, true));
        let d = Tuning::DEFAULT;
        assert_eq!((d.defence_ext, d.defence_ext_pv), (0, false));
        let t = Tuning::parse("lastb=100,ownb=-20,cmb=150").unwrap();
        assert_eq!(
            (t.last_bonus, t.own_last_bonus, t.counter_bonus),
            (100, -20, 150)
        );
        let t = Tuning::parse("vctd=5,vctn=200,vctt=3,vctdepth=10,rvct=0").unwrap();
        assert_eq!(
            (t.vct_min_depth, t.vct_nodes, t.vct_threes, t.vct_depth),
            (5, 200, 3, 10)
        );
        assert_eq!(t.root_vct_divisor, 0);
        let t = Tuning::parse("vcft=0,vcftn=5").unwrap();
        assert_eq!((t.root_vcf_threat_nodes, t.root_vcf_threat_moves), (0, 5));
        let d = Tuning::DEFAULT;
        assert_eq!(
            (d.root_vcf_threat_nodes, d.root_vcf_threat_moves),
            (ROOT_VCF_THREAT_NODES, ROOT_VCF_THREAT_MOVES)
        );
        let t = Tuning::parse("rvctt=4,rvctdepth=24,rvctn=300000,rvctrate=500,rvctwide=1").unwrap();
        assert_eq!(
            (
                t.root_vct_threes,
                t.root_vct_depth,
                t.root_vct_nodes,
                t.root_vct_rate
            ),
            (4, 24, 300_000, 500)
        );
        assert!(t.root_vct_wide && !Tuning::DEFAULT.root_vct_wide);
        assert_eq!(Tuning::parse("rvctpn=5").unwrap().root_vct_pn, 5);
        assert_eq!(Tuning::DEFAULT.root_vct_pn, 0);
        assert_eq!(Tuning::parse("svct=5000").unwrap().safety_vct_nodes, 5000);
        assert_eq!(Tuning::DEFAULT.safety_vct_nodes, 0);
        let t = Tuning::parse("rfoul=0,rfz=1").unwrap();
        assert!(!t.renju_fouls_defend && t.renju_foul_scores_zero);
        let t = Tuning::parse("").unwrap();
        assert!(t.renju_fouls_defend && !t.renju_foul_scores_zero);
        // The eighth session's knobs.
        let t = Tuning::parse("pvlimit=16,razor=50,razordepth=3,lmrq=2,lmrfrom=2,far=1,vcfb=1")
            .unwrap();
        assert_eq!(
            (
                t.pv_move_limit,
                t.razor,
                t.razor_depth,
                t.lmr_threats,
                t.lmr_from
            ),
            (16, 50, 3, 2, 2)
        );
        assert!(t.far_scale == 1 && t.leaf_vcf_below_beta);
        // The sixty-first session's correction history: off by default, clamped when given.
        let t = Tuning::parse("corr=500,corrw=0,corrk=9").unwrap();
        assert_eq!(
            (t.correction_pct, t.correction_rate, t.correction_keys),
            (200, 1, 7)
        );
        assert_eq!(Tuning::DEFAULT.correction_pct, 0);
        assert!(
            Tuning::DEFAULT.correction_leaves
                && !Tuning::parse("corrleaf=0").unwrap().correction_leaves
        );
        // Rule-dependent defaults resolve per rule; explicit values stay.
        let renju = Tuning::DEFAULT.for_rule(crate::types::Rule::Renju);
        let free = Tuning::DEFAULT.for_rule(crate::types::Rule::Freestyle);
        assert_eq!((renju.far_scale, renju.order_attack_16ths), (0, 32));
        assert_eq!((free.far_scale, free.order_attack_16ths), (1, 24));
        // Own fours are reduced in exact five only, unless a value is given.
        let exact = Tuning::DEFAULT.for_rule(crate::types::Rule::Exact);
        assert_eq!(
            (free.lmr_threats, renju.lmr_threats, exact.lmr_threats),
            (2, 2, 1)
        );
        let t = Tuning::parse("lmrq=2").unwrap();
        assert_eq!(t.for_rule(crate::types::Rule::Exact).lmr_threats, 2);
        let t = Tuning::parse("far=1,ordatk=20").unwrap();
        let r = t.for_rule(crate::types::Rule::Renju);
        assert_eq!((r.far_scale, r.order_attack_16ths), (1, 20));
        assert_eq!(Tuning::parse("turnpct=80").unwrap().turn_bound_pct, 80);
        assert_eq!(Tuning::parse("mtg=12").unwrap().moves_to_go, 12);
        assert_eq!(Tuning::parse("mtg=0").unwrap().moves_to_go, 1);
        assert_eq!(Tuning::parse("iid=7").unwrap().iid, 7);
        let t = Tuning::parse("mcp=8,hgrav=1,ttse=1").unwrap();
        assert_eq!(t.move_count_cap, 8);
        assert!(t.history_gravity && t.tt_static);
        // The tenth session's knobs are off by default.
        let d = Tuning::parse("").unwrap();
        assert_eq!((d.move_count_cap, d.iid, d.turn_bound_pct), (0, 0, 0));
        assert!(!d.history_gravity && !d.tt_static);
        assert_eq!(d.aspiration, super::alphabeta::ASPIRATION_WINDOW);
        assert_eq!(Tuning::parse("asp=150").unwrap().aspiration, 150);
        assert_eq!(Tuning::parse("asp=0").unwrap().aspiration, 1);
        // The VCF defence's experiment knobs: fours checked by default.
        assert!(d.root_vcf_defence_fours && d.root_vcf_defence_exclude);
        let t = Tuning::parse("vcfdef=2000,vcfdef4=0").unwrap();
        assert_eq!(t.root_vcf_defence_nodes, 2000);
        assert!(!t.root_vcf_defence_fours);
        // The twelfth session's: two-ply smoothing of the static value, off by default.
        assert_eq!(d.eval_average, 0);
        assert_eq!(Tuning::parse("avg=2").unwrap().eval_average, 2);
        assert_eq!(Tuning::parse("avg=9").unwrap().eval_average, 2);
        // The thirteenth session's: the star of candidate cells, off by default.
        assert_eq!(d.near_star, 0);
        assert_eq!(Tuning::parse("star=1").unwrap().near_star, 1);
        assert_eq!(Tuning::parse("star=7").unwrap().near_star, 2);
        // The fourteenth session's: mate bounds from the table at any depth, and reductions of
        // own fours except against a three. Both off by default.
        assert_eq!(d.tt_mate, 0);
        assert_eq!(Tuning::parse("ttmate=2").unwrap().tt_mate, 2);
        assert_eq!(Tuning::parse("ttmate=5").unwrap().tt_mate, 2);
        assert_eq!(Tuning::parse("lmrq=3").unwrap().lmr_threats, 3);
        assert_eq!(Tuning::parse("lmrq=7").unwrap().lmr_threats, 4);
        // The fifteenth session's: singular extension and multi-cut; singular extensions are
        // per rule by default (ninety-first session), multi-cut is off.
        let t = Tuning::parse("se=6,sem=15,semc=1").unwrap();
        assert_eq!((t.singular_depth, t.singular_margin), (6, 15));
        assert!(t.singular_multicut);
        assert_eq!((d.singular_depth, d.singular_multicut), (-1, false));
        let on = |r| d.for_rule(r).singular_depth;
        use crate::types::Rule::{Caro, Exact, Freestyle, Renju};
        assert_eq!(
            [
                on(Freestyle),
                on(Renju),
                on(Exact),
                on(Caro {
                    overline_wins: false
                })
            ],
            [6, 6, 6, 6]
        );
        let off = Tuning::parse("se=0").unwrap().for_rule(Freestyle);
        assert_eq!(off.singular_depth, 0);
        assert_eq!(Tuning::parse("bogus=1"), None);
        assert_eq!(Tuning::parse("limit=x"), None);
        let t = Tuning::parse("p6=3,b4=92,b8=387").unwrap();
        assert_eq!(
            (t.eval.pattern[6], t.eval.bonus[4], t.eval.bonus[8]),
            (3, 92, 387)
        );
        assert_eq!(t.eval.pattern[7], Tuning::DEFAULT.eval.pattern[7]);
        let t = Tuning::parse("o5=0,o7=40").unwrap();
        assert_eq!((t.order_bonus[5], t.order_bonus[7]), (0, 40));
        let t = Tuning::parse("i1=7,i16=-5").unwrap();
        assert_eq!((t.indicators[0], t.indicators[15]), (7, -5));
        assert_eq!(t.indicators[1], Tuning::DEFAULT.indicators[1]);
        assert_eq!(Tuning::parse("i17=1"), None);
        assert_eq!(Tuning::parse("i0=1"), None);
        for bad in ["p0=1", "p10=1", "q1=1", "b=1", "px=1"] {
            assert_eq!(Tuning::parse(bad), None, "{bad}");
        }
    }
}
