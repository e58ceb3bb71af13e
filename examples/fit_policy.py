#!/usr/bin/env python3
"""Fits a move-ordering policy (`rensa::search::policy`) to a stronger player's moves.

    cargo run --release --example dump_policy -- freestyle games.jsonl > policy.csv
    python3 examples/fit_policy.py policy.csv out.policy --combos-base nets/freestyle.combo

A cell's policy score is a score for the side to move's combination of four line classes there,
one for the opponent's, one for the pair of threat classes and one each for the distance to the
last move and to the side to move's own last move. The fit raises the played move's share of a
softmax over each position's candidates (full-batch Adam, one game in ten held out, as the dump's
column 2 says). It starts from the engine's cell scores (`--attack` times the side to move's plus
the opponent's, over `--temp`), and fits only the entries seen at least `--min` times in the
training rows. It prints, for the engine's static order and for the policy, how often the played
move is among the first k candidates (training / held out), and writes the policy in
move-ordering units: the logits times `--scale`. `--colours` fits separate tables for black and
white to move (renju). `--init FILE` starts from a policy file instead (with `--steps 0` it
only measures that policy on the data, e.g. the built-in one on another rule's or board's games).
`--windows R` (with `dump_policy --windows` data) also fits a score per line window of R cells
either way, shared by the four directions; `--freeze` fits only those on top of `--init`.
Needs numpy.
"""
import argparse
import numpy as np

from combo_score import combo_threat_and_score

NM = 10000  # combination multisets (`pattern::combo_multiset`)

ap = argparse.ArgumentParser()
ap.add_argument("data", help="`dump_policy` output")
ap.add_argument("out", help="the policy file to write (`RENSA_POLICY=FILE`)")
ap.add_argument("--colours", action="store_true", help="separate tables per colour to move")
ap.add_argument("--combos-base", metavar="FILE",
                help="the built-in per-combination corrections of the rule (`nets/*.combo`)")
ap.add_argument("--steps", type=int, default=150)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--l2", type=float, default=1e-4, help="pull on the squared logits")
ap.add_argument("--min", type=int, default=30, help="fit entries seen at least this often")
ap.add_argument("--attack", type=float, default=1.5, help="start: the own cell score's weight")
ap.add_argument("--temp", type=float, default=100.0, help="start: cell-score units per logit")
ap.add_argument("--scale", type=float, default=150.0, help="move-ordering units per logit")
ap.add_argument("--windows", type=int, default=0, metavar="R",
                help="also fit a score per line window of R cells either way (1-4; data from "
                     "`dump_policy --windows`), shared by the four directions and mirror images")
ap.add_argument("--freeze", action="store_true",
                help="keep the --init policy's tables as they are and fit only the windows")
ap.add_argument("--wl2", type=float, default=1e-3, help="pull on the squared window logits")
ap.add_argument("--init", metavar="FILE",
                help="start from this policy file (read with --scale) instead of the cell scores; "
                     "with --steps 0 it only measures the file on the data")
o = ap.parse_args()

d = np.loadtxt(o.data, delimiter=",", dtype=np.int64)
pos, test, rank, played, mo, mp, to, tp, so, sp, dl, do, col = d.T[:13]
if not o.colours:
    col = np.zeros_like(col)
NC = 2 if o.colours else 1
pos = np.cumsum(np.r_[0, np.diff(pos) != 0])  # numbered afresh: dumps may be concatenated
starts = np.r_[0, np.where(np.diff(pos) != 0)[0] + 1]
G = len(starts)
gtest = test[starts] > 0
pl = played > 0
print(f"{G} positions, {len(d)} candidates, {int(gtest.sum())} positions held out")


def recall(score, name):
    """How often the played move is among the first k by `score` (ties count against it)."""
    better = np.bincount(pos, weights=(score > score[pl][pos]).astype(float), minlength=G)
    print(f"{name}: " + " ".join(
        f"@{k} {(better < k)[~gtest].mean() * 100:.1f}/{(better < k)[gtest].mean() * 100:.1f}"
        for k in (1, 2, 3, 5, 8, 12)) + "  (training / held out, %)", flush=True)


recall(-rank.astype(float), "engine's static order")


cs = np.array([combo_threat_and_score(m)[1] for m in range(NM)], float)
if o.combos_base:
    with open(o.combos_base) as fh:
        for line in fh:
            if f := line.split():
                cs[int(f[0])] += int(f[1])
cs = np.maximum(cs, 0)
seen_own = np.bincount(mo, minlength=NM) > 0
mean_own = np.bincount(mo, weights=so, minlength=NM) / np.maximum(np.bincount(mo, minlength=NM), 1)
print(f"cell scores reproduced: {np.mean(np.abs(cs - mean_own)[seen_own] < 0.5) * 100:.1f} % "
      "of the combinations seen (with the right --combos-base)")

feats = [mo + col * NM, mp + col * NM, dl + col * 7, do + col * 7,
         np.minimum(to, 9) * 10 + np.minimum(tp, 9) + col * 100]
sizes = [NM * NC, NM * NC, 7 * NC, 7 * NC, 100 * NC]
NW = 0
if o.windows:
    R = o.windows
    NW = 1 << (4 * R)
    idx = np.arange(NW)
    mirror = np.zeros(NW, np.int64)
    for n in range(2 * R):
        mirror |= ((idx >> (2 * n)) & 3) << (2 * (2 * R - 1 - n))
    canon = np.minimum(idx, mirror)
    wins = [canon[(d.T[13 + k] >> (2 * (4 - R))) & (NW - 1)] + col * NW for k in range(4)]
train = ~gtest[pos]
free = [np.bincount(f[train], minlength=n) >= o.min for f, n in zip(feats, sizes)]
W = np.zeros(NW * NC)
P = [np.tile(cs, NC) * o.attack / o.temp, np.tile(cs, NC) / o.temp] + [np.zeros(n) for n in sizes[2:]]
wfree = (sum(np.bincount(w[train], minlength=NW * NC) for w in wins) >= o.min) if NW else None
wm1, wm2 = np.zeros_like(W), np.zeros_like(W)
if NW:
    print(f"{int(wfree.sum())} of {NW * NC} windows fitted")
if o.init:
    P = [np.zeros(n) for n in sizes]
    kinds = {"own": 0, "opp": 1, "last": 2, "ownlast": 3, "threat": 4}
    with open(o.init) as fh:
        for line in fh:
            f = line.split("#")[0].split()
            if not f:
                continue
            cols = list(range(NC))  # a line without a colour holds for both
            if f[0] in ("black", "white"):
                cols = [("black", "white").index(f[0])] if NC == 2 else [0]
                f = f[1:]
            if f[0].startswith("window"):
                if f[0] != f"window{o.windows}":
                    raise SystemExit(f"{o.init}: {f[0]} lines need --windows {f[0][6:]}")
                for c in cols:
                    W[c * NW + int(f[1])] = int(f[-1]) / o.scale
                continue
            k = kinds[f[0]]
            i = int(f[1]) * 10 + int(f[2]) if k == 4 else int(f[1])
            for c in cols:
                P[k][c * sizes[k] // NC + i] = int(f[-1]) / o.scale
m1 = [np.zeros_like(p) for p in P]
m2 = [np.zeros_like(p) for p in P]


def softmax_loss(s):
    e = np.exp(s - np.maximum.reduceat(s, starts)[pos])
    p = e / np.add.reduceat(e, starts)[pos]
    ll = -np.log(np.maximum(p[pl], 1e-12))
    return p, ll[~gtest].mean(), ll[gtest].mean()


def adam(x, g, m1, m2, t):
    """One Adam step on `x` with gradient `g` and moment estimates `m1`, `m2` (all in place)."""
    m1 *= 0.9
    m1 += 0.1 * g
    m2 *= 0.999
    m2 += 0.001 * g * g
    x -= o.lr * (m1 / (1 - 0.9 ** t)) / (np.sqrt(m2 / (1 - 0.999 ** t)) + 1e-8)


def total():
    s = sum(p[f] for p, f in zip(P, feats))
    if NW:
        s = s + sum(W[w] for w in wins)
    return s


for t in range(1, o.steps + 1):
    s = total()
    p, ltr, lte = softmax_loss(s)
    if t == 1 or t % 50 == 0:
        print(f"step {t}: choice loss {ltr:.4f} / {lte:.4f}")
        recall(s, f"policy, step {t}")
    g = (p - pl) * train / (~gtest).sum()
    for k, (f, n) in enumerate(zip(feats, sizes) if not o.freeze else []):
        gk = (np.bincount(f, weights=g, minlength=n) + 2 * o.l2 * P[k]) * free[k]
        adam(P[k], gk, m1[k], m2[k], t)
    if NW:
        gw = (sum(np.bincount(w, weights=g, minlength=NW * NC) for w in wins) + 2 * o.wl2 * W) * wfree
        adam(W, gw, wm1, wm2, t)

s = total()
print("end: choice loss {1:.4f} / {2:.4f}".format(*softmax_loss(s)))
recall(s, "policy, end")
v = lambda k, i: int(round(P[k][i] * o.scale))
with open(o.out, "w") as fh:
    for c in range(NC):
        pre = ("black ", "white ")[c] if NC == 2 else ""
        for name, k in (("own", 0), ("opp", 1)):
            for m in range(NM):
                if x := v(k, c * NM + m):
                    fh.write(f"{pre}{name} {m} {x}\n")
        for a in range(10):
            for b in range(10):
                if x := v(4, c * 100 + a * 10 + b):
                    fh.write(f"{pre}threat {a} {b} {x}\n")
        for dd in range(7):
            fh.write(f"{pre}last {dd} {v(2, c * 7 + dd)}\n{pre}ownlast {dd} {v(3, c * 7 + dd)}\n")
        for w in range(NW):
            if canon[w] == w and (x := int(round(W[c * NW + w] * o.scale))):
                fh.write(f"{pre}window{R} {w} {x}\n")
