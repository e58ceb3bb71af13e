#!/usr/bin/env python3
"""Fits the evaluation network (`rensa::eval::Net`) to a stronger player's moves (comparison
training, the "Bonanza method" of computer shogi), starting from a network file.

    cargo run --release --example dump_choices -- renju games.jsonl > choices.csv
    python3 examples/fit_choices.py choices.csv nets/renju.net out.net [--steps 300] [--result 1]

For every position, `dump_choices` gives the network's inputs at the end of a short search
after each candidate move and which candidate the game's player chose. The search's value of a
candidate is, as in the engine, the pattern evaluation moved halfway to the network's
(`eval::NET_SHARE_PCT`), from the root's side (sign). The fit raises the chosen candidate's
share of a softmax over the candidates' values (temperature fitted too). Tactics, not the
evaluation, decide positions where a candidate's search proved a win or the chosen one was
proved lost: they are left out, as are the other candidates proved lost. `--result W` adds W
times the log-loss of the network's prediction of the game result at each position, which
keeps its output a win probability (the engine relies on that scale). Full-batch Adam; one
game in ten is held out (the dump's column 2), and the script prints, before and after, the
held-out share of positions where the best-valued candidate is the chosen one (shared among
ties), the choice loss and the result log-loss. Dumps of several processes can be
concatenated: a position is a run of lines with the same number.

With `--combos FILE` (written by `dump_choices --combos FILE`) it also fits a correction of the
cell score per combination of four line classes (the multisets `pattern::combo_multiset`
numbers), shared by both colours; `--combos-out` writes them for `RENSA_COMBO=FILE`. The dump's
boards carry the board's built-in corrections, so the fitted ones add to those: name them with
`--combos-base nets/X.combo` (no cell score is let below 0) and `--combos-merged FILE` writes
the sum, a replacement for the built-in file.

With `--windows FILE[,FILE]` (written by `dump_choices --windows FILE`, one file per dump in the
dump's order) it also fits a cell-score term per eight-cell line window, the exact stones four
cells either way (an experiment: it learned the training games and predicted the held-out ones
worse, fifty-ninth session).
Needs numpy and `combo_score.py` beside it.
"""
import argparse
import numpy as np

# The built-in weights the pattern fit starts from, and the cell score of a combination.
from combo_score import INDICATORS, PATTERN_SCORE, THREAT_BONUS, combo_threat_and_score

ap = argparse.ArgumentParser()
ap.add_argument("choices")
ap.add_argument("start", help="network file to start from (e.g. nets/renju.net)")
ap.add_argument("out")
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--result", type=float, default=1.0, metavar="W",
                help="weight of the result log-loss next to the choice loss")
ap.add_argument("--share", type=float, default=0.5, help="the network's share of the value")
ap.add_argument("--patterns", action="store_true",
                help="fit the pattern evaluation's weights as well (dump with pattern columns)")
ap.add_argument("--plr", type=float, default=1.0, help="learning rate of the pattern weights")
ap.add_argument("--combos", metavar="FILE",
                help="also fit a score correction per combination of four line classes, from "
                     "`dump_choices --combos FILE`")
ap.add_argument("--combos-out", metavar="FILE", help="where to write them (`RENSA_COMBO=FILE`)")
ap.add_argument("--combos-base", metavar="FILE",
                help="the built-in corrections the dump's boards already had (`nets/*.combo`): "
                     "keeps every corrected cell score non-negative, as the engine does")
ap.add_argument("--combos-merged", metavar="FILE",
                help="also write the built-in corrections plus the fitted ones (a new "
                     "`nets/*.combo`)")
ap.add_argument("--clr", type=float, default=1.0, help="learning rate of the corrections")
ap.add_argument("--cl2", type=float, default=0.0, metavar="W",
                help="pull the corrections towards 0 with W times their squared size")
ap.add_argument("--min-cells", type=int, default=50,
                help="fit only corrections of combinations with at least this many cells in "
                     "the training rows")
ap.add_argument("--windows", metavar="FILES",
                help="also fit a score per eight-cell line window (comma-separated files of "
                     "`dump_choices --windows FILE`, one per dump, in the dump's order)")
ap.add_argument("--wlr", type=float, default=1.0, help="learning rate of the window scores")
ap.add_argument("--wl2", type=float, default=0.0, metavar="W",
                help="pull the window scores towards 0 with W times their squared size")
ap.add_argument("--wmin", type=int, default=50,
                help="fit only windows seen at least this often in the training rows")
ap.add_argument("--windows-out", metavar="FILE", help="where to write the window scores")
ap.add_argument("--l2", type=float, default=0.0, metavar="W",
                help="pull the weights towards the start's with W times their squared distance")
o = ap.parse_args()

d = np.loadtxt(o.choices, delimiter=",", dtype=np.float64)
pos, test, cand, played, label, sign, mate = (d[:, i] for i in range(7))
base, me, op, net_col = d[:, 7], d[:, 8:18], d[:, 18:28], d[:, 28]
pos = np.cumsum(np.r_[0, np.diff(pos) != 0])  # numbered afresh: dumps may be concatenated
# Tactics decide the positions where a candidate's search proved a win, or where the played
# one was proved lost: those are left out, and so are other candidates proved lost.
bad = np.zeros(int(pos.max()) + 1, bool)
bad[pos[(mate > 0) | ((mate < 0) & (played > 0))].astype(int)] = True
keep = ~bad[pos.astype(int)] & (mate == 0)
few = np.bincount(pos[keep & (cand >= 0)].astype(int), minlength=len(bad)) < 2
keep &= ~few[pos.astype(int)]
pos, test, cand, played, label, sign, mate = (v[keep] for v in (pos, test, cand, played, label, sign, mate))
base, me, op, net_col = base[keep], me[keep], op[keep], net_col[keep]
root = cand < 0
rows = ~root
print(f"{int(root.sum())} positions, {int(rows.sum())} candidates")


# The dump's line numbers of the kept rows, for the --combos and --windows files.
new_index = np.full(len(keep), -1)
new_index[np.where(keep)[0]] = np.arange(int(keep.sum()))
# With --combos, per side the (row, multiset, cells) triples of the kept rows.
if o.combos:
    trip = [([], [], []), ([], [], [])]
    with open(o.combos) as fh:
        for r, line in enumerate(fh):
            j = new_index[r]
            if j < 0:
                continue
            for side, part in enumerate(line.rstrip("\n").split(";")):
                for pair in part.split():
                    m, k = pair.split(":")
                    trip[side][0].append(j)
                    trip[side][1].append(int(m))
                    trip[side][2].append(float(k))
    assert r + 1 == len(keep), "the combos file must have one line per line of the dump"
    CR = [tuple(np.array(v) for v in t) for t in trip]
    train_rows = test == 0
    seen = np.zeros(10000)
    for rr_, mm, kk in CR:
        np.add.at(seen, mm[train_rows[rr_]], kk[train_rows[rr_]])
    cfree = seen >= o.min_cells
    cfree[0] = False
    cbase = np.array([combo_threat_and_score(m)[1] for m in range(10000)], float)
    cbuilt = np.zeros(10000, int)
    if o.combos_base:
        with open(o.combos_base) as fh:
            for line in fh:
                if fields := line.split():
                    cbuilt[int(fields[0])] = int(fields[1])
    cbase += cbuilt
    print(f"combinations: {int((seen > 0).sum())} seen, {int(cfree.sum())} with at least "
          f"{o.min_cells} training cells fitted")

# With --windows, per side the (row, window, count) triples of the kept rows.
if o.windows:
    dt = np.dtype([("l", "<u4"), ("w", "<u2"), ("s", "<u2"), ("k", "<u2")])
    parts, offset = [], 0
    for f in o.windows.split(","):
        a = np.fromfile(f, dtype=dt)
        assert a["k"][-1] == 0, f"{f}: no closing record"
        parts.append((a["l"][:-1].astype(np.int64) + offset, a["w"][:-1], a["s"][:-1],
                      a["k"][:-1].astype(float)))
        offset += int(a["l"][-1])
    assert offset == len(keep), f"the window files hold {offset} lines, the dump {len(keep)}"
    L, Wi, S, Kc = (np.concatenate([p[i] for p in parts]) for i in range(4))
    j = new_index[L]
    ok = j >= 0
    WR = [(j[ok & (S == side)], Wi[ok & (S == side)].astype(np.int64), Kc[ok & (S == side)])
          for side in (0, 1)]
    del L, Wi, S, Kc, j, ok, parts
    train_rows = test == 0
    wseen = np.zeros(65536)
    for rr_, ww, kk in WR:
        np.add.at(wseen, ww[train_rows[rr_]], kk[train_rows[rr_]])
    wfree = wseen >= o.wmin
    print(f"windows: {int((wseen > 0).sum())} seen, {int(wfree.sum())} with at least "
          f"{o.wmin} training cells fitted; {sum(len(r[0]) for r in WR)} entries")

# The network file: `K inputs hidden`, W1 (inputs x hidden), b1, w2, b2, a, lin.
with open(o.start) as fh:
    lines = fh.read().split("\n")
K, nin, nh = (float(v) for v in lines[0].split())
nin, nh = int(nin), int(nh)
num = lambda i: np.array([float(v) for v in lines[i].split()])
P = {"W1": num(1).reshape(nin, nh), "b1": num(2), "w2": num(3), "b2": num(4), "a": num(5),
     "lin": num(6), "logT": np.array([np.log(K)])}

# With --patterns, the pattern evaluation's weights too (`pattern::PATTERN_SCORE`,
# `THREAT_BONUS` from 1 on, `eval::INDICATORS`): a cell's score is its four line patterns'
# weights plus its threat class's bonus, so a side's score sum is the (cell, direction) counts
# of each pattern (the dump's last 18 columns) and its cells of each threat class times them.
if o.patterns:
    P["wp"] = np.array(PATTERN_SCORE[1:], float)
    P["bt"] = np.array(THREAT_BONUS[1:], float)
    P["ind"] = np.array(INDICATORS, float)
    npat = [d[:, 30:39][keep], d[:, 39:48][keep]]
    cls = [me[:, :9], op[:, :9]]
    flags = np.column_stack([c[:, k] >= m for c in cls for k in (3, 4, 5, 6) for m in (1, 2)])
    s_me = npat[0] @ P["wp"] + cls[0] @ P["bt"]
    print(f"score sums reproduced: {np.mean(s_me == me[:, 9]) * 100:.1f} %; static values within 2: "
          f"{np.mean(np.abs(np.clip((1.25 * s_me - npat[1] @ P['wp'] - cls[1] @ P['bt']) / 4 + flags @ P['ind'], -20000, 20000) - base) <= 2) * 100:.1f} %")
if o.combos:
    P["corr"] = np.zeros(10000)
if o.windows:
    P["win"] = np.zeros(65536)
P0 = {k: v.copy() for k, v in P.items()}


def combo_sums():
    """Per side, each row's sum of the corrections over its empty cells."""
    return [np.bincount(r_, weights=k_ * P["corr"][m_], minlength=len(base)) for r_, m_, k_ in CR]


def inputs():
    """The static values, the two score sums and the network's inputs under the weights P."""
    if not o.patterns and not o.combos:
        return base, me[:, 9], op[:, 9], np.column_stack(
            [base / K, np.log1p(me[:, :9]), np.log1p(op[:, :9]), me[:, 9] / 1000, op[:, 9] / 1000])
    if o.patterns:
        sm = npat[0] @ P["wp"] + cls[0] @ P["bt"]
        so = npat[1] @ P["wp"] + cls[1] @ P["bt"]
        b = np.clip((1.25 * sm - so) / 4 + flags @ P["ind"], -20000, 20000)
    else:
        sm, so, b = me[:, 9], op[:, 9], base
    if o.combos or o.windows:
        cm, co = combo_sums() if o.combos else (0, 0)
        if o.windows:
            wm, wo = (np.bincount(r_, weights=k_ * P["win"][w_], minlength=len(base))
                      for r_, w_, k_ in WR)
            cm, co = cm + wm, co + wo
        sm, so = sm + cm, so + co
        b = np.clip(b + np.trunc((1.25 * cm - co) / 4), -20000, 20000)
    return b, sm, so, np.column_stack([b / K, np.log1p(me[:, :9]), np.log1p(op[:, :9]), sm / 1000,
                                       so / 1000])


def net(x):
    hid = np.maximum(x @ P["W1"] + P["b1"], 0)
    return hid, P["a"][0] * x[:, 0] + x @ P["lin"] + hid @ P["w2"] + P["b2"][0]


_, z0 = net(inputs()[3])
ours = np.clip((z0 * K).astype(np.int64), -20000, 20000)
print(f"network values reproduced: {np.mean(np.abs(ours - net_col) <= 1) * 100:.1f} % within 1")

# Candidate rows grouped by position, in file order.
cr = np.where(rows)[0]
cpos = pos[cr]
starts = np.r_[0, np.where(np.diff(cpos) != 0)[0] + 1]
group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(cr)]))
gtest = test[cr][starts] > 0
rr = np.where(root)[0]
rtest = test[rr] > 0
MATE_VALUE = 30000.0


def sig(x):
    return 1 / (1 + np.exp(-x))


def evaluate(grad=False):
    """The statistics under the weights P, and with `grad` the loss's gradient."""
    bv, sm, so, X = inputs()
    hid, z = net(X)
    value = bv + o.share * (np.clip(z * K, -20000, 20000) - bv)
    cv = np.where(mate[cr] != 0, mate[cr] * MATE_VALUE, sign[cr] * value[cr])
    T = np.exp(P["logT"][0])
    s = cv / T
    gmax = np.maximum.reduceat(s, starts)
    e = np.exp(s - gmax[group])
    tot = np.add.reduceat(e, starts)
    p = e / tot[group]
    pl = played[cr] > 0
    choice = -np.log(np.maximum(p[pl], 1e-12))  # one per position
    best = np.maximum.reduceat(cv, starts)
    # A tie for the best counts as a share.
    hit = (cv[pl] >= best) / np.add.reduceat((cv >= best[group]).astype(float), starts)
    pr = np.clip(sig(z[rr]), 1e-6, 1 - 1e-6)
    y = label[rr]
    rloss = -(y * np.log(pr) + (1 - y) * np.log(1 - pr))
    stats = {}
    for name, gm, rm in [("train", ~gtest, ~rtest), ("held out", gtest, rtest)]:
        stats[name] = (hit[gm].mean(), choice[gm].mean(), rloss[rm].mean())
    if not grad:
        return stats
    ng, nr = (~gtest).sum(), (~rtest).sum()
    # d(choice loss)/d(s) = p - onehot, per training position.
    gs = (p - pl) * (~gtest[group]) / ng
    gcv = gs / T
    gz = np.zeros(len(X))
    free = (mate[cr] == 0) & (np.abs(z[cr] * K) < 20000)
    gz[cr] += np.where(free, gcv * sign[cr] * o.share * K, 0.0)
    gz[rr] += o.result * (pr - y) * (~rtest) / nr
    G = {"logT": np.array([-(gs * s).sum()])}
    gh = np.outer(gz, P["w2"]) * (hid > 0)
    G.update({"W1": X.T @ gh, "b1": gh.sum(0), "w2": hid.T @ gz, "b2": np.array([gz.sum()]),
              "a": np.array([gz @ X[:, 0]]), "lin": X.T @ gz})
    if o.patterns or o.combos or o.windows:
        # Back through the network's inputs to the static value and the score sums.
        gx = np.outer(gz, P["lin"]) + gh @ P["W1"].T
        gx[:, 0] += P["a"][0] * gz
        gb = gx[:, 0] / K
        gb[cr] += np.where(mate[cr] == 0, gcv * sign[cr] * (1 - o.share), 0.0)
        gb *= np.abs(bv) < 20000
        gsm = 1.25 / 4 * gb + gx[:, 19] / 1000
        gso = -gb / 4 + gx[:, 20] / 1000
        if o.patterns:
            G["wp"] = npat[0].T @ gsm + npat[1].T @ gso
            G["bt"] = cls[0].T @ gsm + cls[1].T @ gso
            G["ind"] = flags.T.astype(float) @ gb
        if o.combos:
            G["corr"] = sum(np.bincount(m_, weights=k_ * g[r_], minlength=10000)
                            for (r_, m_, k_), g in zip(CR, (gsm, gso))) * cfree
            G["corr"] += 2 * o.cl2 * P["corr"] * cfree
        if o.windows:
            G["win"] = sum(np.bincount(w_, weights=k_ * g[r_], minlength=65536)
                           for (r_, w_, k_), g in zip(WR, (gsm, gso))) * wfree
            G["win"] += 2 * o.wl2 * P["win"] * wfree
    for k in G:
        if k not in ("logT", "corr", "win"):
            G[k] = G[k] + 2 * o.l2 * (P[k] - P0[k])
    return stats, G


def show(tag, st):
    print(f"{tag}: " + "; ".join(f"{k}: best = chosen {v[0] * 100:.1f} %, choice loss {v[1]:.4f}, "
                                 f"result log-loss {v[2]:.4f}" for k, v in st.items()), flush=True)


class Adam:
    """Adam steps on the entries `lr` names of P, each with its learning rate."""

    def __init__(self, lr):
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(P[k]) for k in lr}
        self.v = {k: np.zeros_like(P[k]) for k in lr}

    def step(self, G):
        self.t += 1
        for k, lr in self.lr.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * G[k]
            self.v[k] = 0.999 * self.v[k] + 0.001 * G[k] ** 2
            P[k] -= lr * (self.m[k] / (1 - 0.9 ** self.t)) / (
                np.sqrt(self.v[k] / (1 - 0.999 ** self.t)) + 1e-8)


def write_combos(path, c):
    """Writes the non-zero corrections `c` as `multiset correction` lines (`RENSA_COMBO`)."""
    with open(path, "w") as fh:
        for m in np.nonzero(c)[0]:
            fh.write(f"{m} {c[m]}\n")


share0 = o.share
o.share = 0.0
show("pattern evaluation alone", evaluate())
o.share = share0
show("start", evaluate())
# The temperature alone first, so the start's choice loss is a fair baseline.
adam = Adam({"logT": 0.05})
for _ in range(150):
    adam.step(evaluate(grad=True)[1])
show(f"start, temperature fitted (T = {np.exp(P['logT'][0]):.0f})", evaluate())
adam = Adam({k: o.plr if k in ("wp", "bt", "ind") else o.clr if k == "corr" else
             o.wlr if k == "win" else o.lr for k in P})
for t in range(1, o.steps + 1):
    adam.step(evaluate(grad=True)[1])
    if o.patterns:  # the engine takes no negative pattern weight
        P["wp"], P["bt"] = np.maximum(P["wp"], 0), np.maximum(P["bt"], 0)
    if o.combos:  # nor a negative cell score
        P["corr"] = np.maximum(P["corr"], -cbase)
    if t % 50 == 0 or t == o.steps:
        show(f"step {t} (T = {np.exp(P['logT'][0]):.0f})", evaluate())

if o.patterns:
    print("RENSA_TUNING=" + ",".join([f"p{i + 1}={round(v)}" for i, v in enumerate(P["wp"])] +
                                     [f"b{i + 1}={round(v)}" for i, v in enumerate(P["bt"])] +
                                     [f"i{i + 1}={round(v)}" for i, v in enumerate(P["ind"])]))
if o.combos:
    c = np.round(P["corr"]).astype(int)
    big = np.argsort(-np.abs(c))[:12]
    print("largest corrections: " + ", ".join(f"{m:04d} {c[m]:+d} (score {cbase[m]:.0f})" for m in big))
    if o.combos_out:
        write_combos(o.combos_out, c)
    if o.combos_merged:
        write_combos(o.combos_merged, c + cbuilt)
if o.windows:
    wv = np.round(P["win"]).astype(int)
    big = np.argsort(-np.abs(wv))[:12]
    show_w = lambda w: "".join("_XO|"[(w >> (2 * n)) & 3] for n in range(4)) + "C" + "".join(
        "_XO|"[(w >> (2 * n)) & 3] for n in range(4, 8))
    print("largest window scores: " + ", ".join(f"{show_w(w)} {wv[w]:+d}" for w in big))
    if o.windows_out:
        with open(o.windows_out, "w") as fh:
            for w in np.nonzero(wv)[0]:
                fh.write(f"{w} {wv[w]}\n")
with open(o.out, "w") as fh:
    fh.write(f"{K:g} {nin} {nh}\n")
    for arr in [P["W1"].ravel(), P["b1"], P["w2"], P["b2"], P["a"], P["lin"]]:
        fh.write(" ".join(f"{v:.7g}" for v in arr) + "\n")
