#!/usr/bin/env python3
"""Fits the experimental evaluation network (`rensa::eval::Net`, loaded with RENSA_NET=FILE).

    cargo run --release --example dump_eval_features -- freestyle games.jsonl... > feat.csv
    python3 examples/fit_net.py feat.csv freestyle.net [--hidden 16] [--epochs 15] [--seed 1]

Needs numpy. Inputs (see `eval::NET_INPUTS`): the static value over a scale K fitted to the
results, per side (mover, opponent) ln(1 + cells of each threat class 1..=9), and the two score
sums in thousands. Output: the logit of the side to move's result, as
a * value/K + lin . x + w2 . relu(W1 x + b1) + b2; the engine uses K times it. Rows of games
marked held out (column 2) are not trained on; the script reports the log-loss on them, for the
static value alone and for the network, overall and in a few subsets.

With `--distill LAMBDA` the target is LAMBDA times the game result plus (1 - LAMBDA) times the
result a search predicts, sigmoid(search value / K), from the last column (dump_eval_features
--search NODES). The search values tell the network what deeper play makes of a position, with
less noise than one game's result; held-out losses are still measured against the results.
"""
import argparse
import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("features")
ap.add_argument("out")
ap.add_argument("--hidden", type=int, default=16)
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--seed", type=int, default=1)
ap.add_argument("--distill", type=float, default=None, metavar="LAMBDA",
                help="train on LAMBDA * result + (1 - LAMBDA) * sigmoid(search value / K), the "
                     "search value from the last column (dump_eval_features --search NODES)")
o = ap.parse_args()
print(f"seed {o.seed}")
rng = np.random.default_rng(o.seed)

d = np.loadtxt(o.features, delimiter=",", dtype=np.float64)
y, test, ev = d[:, 0], d[:, 1] > 0, d[:, 3]
me, op = d[:, 5:15], d[:, 15:25]


def sig(x):
    return 1 / (1 + np.exp(-x))


def loss(p, y):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


# The scale K that maps the static value to a result best.
K = min(np.arange(50, 2000, 10), key=lambda k: loss(sig(ev[~test] / k), y[~test]))
target = y
if o.distill is not None:
    sv = d[:, -1]
    target = o.distill * y + (1 - o.distill) * sig(sv / K)
    print(f"distilling: lambda {o.distill}, search value alone: held-out log-loss "
          f"{loss(sig(sv[test] / K), y[test]):.4f} (static value {loss(sig(ev[test] / K), y[test]):.4f})")
X = np.column_stack([ev / K, np.log1p(me[:, :9]), np.log1p(op[:, :9]), me[:, 9] / 1000, op[:, 9] / 1000])
mu, sd = X[~test].mean(0), X[~test].std(0) + 1e-9
mu[0], sd[0] = 0.0, 1.0  # the static value stays raw, so training starts from it
Xs = (X - mu) / sd

n, f = Xs.shape
h = o.hidden
P = {"W1": rng.normal(0, 0.1, (f, h)), "b1": np.zeros(h), "w2": np.zeros(h),
     "b2": np.zeros(1), "a": np.ones(1), "lin": np.zeros(f)}
M = {k: np.zeros_like(v) for k, v in P.items()}
V = {k: np.zeros_like(v) for k, v in P.items()}


def forward(x):
    hid = np.maximum(x @ P["W1"] + P["b1"], 0)
    return hid, P["a"][0] * x[:, 0] + x @ P["lin"] + hid @ P["w2"] + P["b2"][0]


train, t = np.where(~test)[0], 0
for ep in range(o.epochs):
    rng.shuffle(train)
    for s in range(0, len(train), 512):
        idx = train[s:s + 512]
        x, yy = Xs[idx], target[idx]
        hid, z = forward(x)
        g = (sig(z) - yy) / len(idx)
        gh = np.outer(g, P["w2"]) * (hid > 0)
        G = {"W1": x.T @ gh + 1e-5 * P["W1"], "b1": gh.sum(0), "w2": hid.T @ g,
             "b2": np.array([g.sum()]), "a": np.array([g @ x[:, 0]]), "lin": x.T @ g}
        t += 1
        for k in P:  # Adam
            M[k] = 0.9 * M[k] + 0.1 * G[k]
            V[k] = 0.999 * V[k] + 0.001 * G[k] ** 2
            P[k] -= 3e-3 * (M[k] / (1 - 0.9 ** t)) / (np.sqrt(V[k] / (1 - 0.999 ** t)) + 1e-8)
    print(f"epoch {ep + 1}: train {loss(sig(forward(Xs[~test])[1]), y[~test]):.4f} "
          f"held out {loss(sig(forward(Xs[test])[1]), y[test]):.4f}", flush=True)

pz = sig(forward(Xs)[1])
threat = lambda c: c[:, 3:9].sum(1) > 0  # Flex3 and stronger
for name, mask in [("all", np.ones(n, bool)), ("quiet", ~threat(me) & ~threat(op)),
                   ("mover threatens", threat(me)), ("mover has a four-three cell", me[:, 6] > 0)]:
    m = mask & test
    print(f"held out, {name}: {m.sum()} positions, static value {loss(sig(ev[m] / K), y[m]):.4f}, "
          f"network {loss(pz[m], y[m]):.4f}")

# Fold the normalisation into the weights and write the text form `Net::parse` reads.
W1 = P["W1"] / sd[:, None]
b1 = P["b1"] - (mu / sd) @ P["W1"]
lin = P["lin"] / sd
b2 = P["b2"][0] - (mu / sd) @ P["lin"]
with open(o.out, "w") as fh:
    fh.write(f"{K} {f} {h}\n")
    for arr in [W1.ravel(), b1, P["w2"], [b2], P["a"], lin]:
        fh.write(" ".join(f"{v:.7g}" for v in arr) + "\n")
