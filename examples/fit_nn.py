#!/usr/bin/env python3
"""Fits a cell-level evaluation network to the positions `dump_nn` writes (experimental).

    python3 examples/fit_nn.py OUT.nn DUMP.bin [DUMP.bin ...] [--features F] [--hidden H]
        [--epochs E] [--mix M] [--k K] [--with-static] [--radius R] [--min-count N]
        [--linear [--l2 L]] [--check NET]

DUMP.bin come from `dump_nn` (referee records) or `gen_nn_data` (in-process self-play). Line
keys are cut to R cells each way (default 4) and read the shorter way round; keys seen fewer
than N times (default 3) in the training positions get no vector. `--linear` fits a linear
correction instead (one weight per key and colour to move, summed over the cells); `--check
NET` prints the logits of NET on the first positions (to compare with the engine's, see
`dump_nn`). `src/cellnet.rs` reads the file this writes (`RENSA_CELLNET=OUT.nn`).

The network: every empty cell sums one learnt vector of F numbers per direction, looked up by
that direction's pair of pattern bytes (both colours' line classes there); the sum, clipped to
0..1, is added up over the empty cells (divided by 32); a hidden layer of H rectified units per
colour to move and one output give the logit of the side to move's result. With
`--with-static` the engine's static value over K is one more input of the output (the network
then learns a correction). The target is `mix` times the game's result plus `1 - mix` times the
search value's win probability under K (a mate counts 0 or 1). Prints the held-out loss of the
network and of the static value alone (a logistic fit of it per colour), each against the same
targets.
"""
import argparse
import struct
import sys

import numpy as np

CELLS = 225


def load(paths, radius):
    """The positions of the dumps, their line keys already cut to `radius` and read the shorter
    way ([`canonical`]); the keys are converted a chunk of positions at a time, so that a
    million positions fit in memory."""
    res, srch, stat, test, black, ncell, chunks = [], [], [], [], [], [], []
    pending = []
    ktype = np.uint16 if radius <= 4 else np.uint32

    def flush():
        if pending:
            chunks.append(canonical(np.stack(pending), radius).astype(ktype))
            pending.clear()

    for path in paths:
        data = open(path, 'rb').read()
        off = 0
        while off + 16 <= len(data):
            r, s, v, t, b, n = struct.unpack_from('<ffiBBH', data, off)
            if off + 16 + n * 18 > len(data):
                print(f'{path}: the last record is cut short; left out')
                break
            off += 16
            rec = np.frombuffer(data, dtype=np.uint8, count=n * 18, offset=off).reshape(n, 18)
            off += n * 18
            row = np.zeros((CELLS, 4), dtype=np.uint32)
            row[:n] = rec[:, 2:].copy().view('<u4')
            pending.append(row)
            res.append(r)
            srch.append(s)
            stat.append(v)
            test.append(t)
            black.append(b)
            ncell.append(n)
            if len(pending) == 10000:
                flush()
    flush()
    return (np.array(res, np.float32), np.array(srch, np.float32), np.array(stat, np.float32),
            np.array(test, bool), np.array(black, bool), np.concatenate(chunks),
            np.array(ncell))


def canonical(raw, radius):
    """The line keys cut to `radius` cells each way (2 bits a cell, the nearest cells in the
    middle), the smaller of the key and its mirror image (the line read the other way)."""
    raw = raw.astype(np.int64)
    # Cell j of the ten (bits 2j, 2j+1): j = 0..4 are the steps -5..-1, j = 5..9 the steps 1..5.
    cells = [(raw >> (2 * j)) & 3 for j in range(10)]
    keep = cells[5 - radius:5 + radius]
    key = np.zeros_like(raw)
    mirror = np.zeros_like(raw)
    for j, c in enumerate(keep):
        key |= c << (2 * j)
        mirror |= c << (2 * (len(keep) - 1 - j))
    return np.minimum(key, mirror)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def bce(p, t):
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(t * np.log(p) + (1 - t) * np.log(1 - p)))


def targets(res, srch, k, mix):
    p = sigmoid(srch / k)
    p = np.where(srch >= 4999, 1.0, np.where(srch <= -4999, 0.0, p))
    return (mix * res + (1 - mix) * p).astype(np.float32)


def fit_static(stat, black, t, train, test, k):
    """Logistic fit a*v/k + b per colour; returns test loss."""
    x = stat / k
    pred = np.zeros_like(t)
    for col in (True, False):
        m = black == col
        a, b = 1.0, 0.0
        xs, ts = x[m & train], t[m & train]
        for _ in range(300):
            p = sigmoid(a * xs + b)
            g = p - ts
            ga, gb = float(np.mean(g * xs)), float(np.mean(g))
            # Newton-ish step on the two parameters.
            w = p * (1 - p)
            haa, hab, hbb = float(np.mean(w * xs * xs)), float(np.mean(w * xs)), float(np.mean(w))
            det = haa * hbb - hab * hab + 1e-12
            a -= (hbb * ga - hab * gb) / det
            b -= (haa * gb - hab * ga) / det
        pred[m] = sigmoid(a * x[m] + b)
        print(f'static fit {"black" if col else "white"} to move: a={a:.3f} b={b:.3f}')
    return bce(pred[test], t[test]), bce(pred[train], t[train])


class Adam:
    def __init__(self, params, lr):
        self.p = params
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0
        self.lr = lr

    def step(self, grads):
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            mh = self.m[k] / (1 - b1 ** self.t)
            vh = self.v[k] / (1 - b2 ** self.t)
            self.p[k] -= self.lr * mh / (np.sqrt(vh) + 1e-8)


def mean_loss(logits, t, idx_all, chunk=2048):
    """The mean log-loss of `logits(idx)` against `t` over `idx_all`, a chunk at a time."""
    tot = 0.0
    for s in range(0, len(idx_all), chunk):
        idx = idx_all[s:s + chunk]
        tot += bce(sigmoid(logits(idx)), t[idx]) * len(idx)
    return tot / len(idx_all)


def run_epochs(a, rng, tr_idx, te_idx, params, step, evaluate, st_test):
    """Passes over the training positions in random order, `step(idx)` per batch; after each,
    the held-out loss. Returns the best held-out loss and a copy of the parameters then."""
    best = None
    for ep in range(a.epochs):
        rng.shuffle(tr_idx)
        for s in range(0, len(tr_idx), a.batch):
            step(tr_idx[s:s + a.batch])
        lt = evaluate(te_idx)
        print(f'epoch {ep + 1}: held-out loss {lt:.5f} (static {st_test:.5f})', flush=True)
        if best is None or lt < best[0]:
            best = (lt, {k: v.copy() for k, v in params.items()})
    return best


def fit_linear(a, P, ids, mask, colour, svals, t, tr_idx, te_idx, rng, V, vocab, st_test):
    """out = ws[c] * static/k + c2[c] + sum over empty cells and directions of L[id, c]."""
    L = np.zeros((V, 2), np.float32)
    ws = np.ones(2, np.float32)
    c2 = np.zeros(2, np.float32)
    Q = {'L': L, 'ws': ws, 'c2': c2}
    opt = Adam(Q, a.lr)

    def forward(idx):
        col = colour[idx]
        e = Q['L'][ids[idx], col[:, None, None]]  # B, C, 4
        return (e * mask[idx][:, :, None]).sum((1, 2)) + Q['ws'][col] * svals[idx] + Q['c2'][col]

    def evaluate(idx_all):
        return mean_loss(forward, t, idx_all)

    def step(idx):
        B = len(idx)
        col = colour[idx]
        dout = (sigmoid(forward(idx)) - t[idx]) / B
        g = {'L': np.zeros_like(L), 'ws': np.zeros(2, np.float32), 'c2': np.zeros(2, np.float32)}
        for c in (0, 1):
            m = col == c
            g['ws'][c] = (dout[m] * svals[idx][m]).sum()
            g['c2'][c] = dout[m].sum()
            flat = (ids[idx][m] * mask[idx][m][:, :, None]).reshape(-1)
            w = np.repeat(dout[m], ids.shape[1] * 4)
            g['L'][:, c] = np.bincount(flat, weights=w, minlength=V)
        g['L'][0] = 0
        g['L'] += a.l2 * Q['L']
        opt.step(g)

    best = run_epochs(a, rng, tr_idx, te_idx, Q, step, evaluate, st_test)
    lt, W = best
    print(f'best held-out loss {lt:.5f}; ws {W["ws"]}, c2 {W["c2"]}')
    with open(a.out, 'w') as f:
        f.write(f'# linear line-key correction k={a.k} mix={a.mix} radius={a.radius} '
                f'held-out {lt:.5f} static {st_test:.5f}\n')
        f.write(f'ws {W["ws"][0]} {W["ws"][1]} c2 {W["c2"][0]} {W["c2"][1]}\n')
        for v, row in zip(vocab, W['L'][1:]):
            f.write(f'{v} {row[0]:.6g} {row[1]:.6g}\n')


def read_net(path, P, vocab, remap):
    """A network file as fit_nn writes it, mapped onto this run's vocabulary (keys not in it
    are dropped: a check should use the same dumps)."""
    lines = [l for l in open(path) if not l.startswith('#')]
    F, H, nv, ws_flag, k, radius = lines[0].split()
    F, H, nv = int(F), int(H), int(nv)
    W = {k2: np.zeros_like(v) for k2, v in P.items()}
    for l in lines[1:1 + nv]:
        v = l.split()
        key = int(v[0])
        W['E'][remap[key]] = np.array([float(x) for x in v[1:]], np.float32)
    W['E'][0] = 0
    for l in lines[1 + nv:]:
        v = l.split()
        W[v[0]] = np.array([float(x) for x in v[1:]], np.float32).reshape(P[v[0]].shape)
    return W


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out')
    ap.add_argument('dumps', nargs='+')
    ap.add_argument('--features', type=int, default=16)
    ap.add_argument('--hidden', type=int, default=16)
    ap.add_argument('--epochs', type=int, default=10)
    ap.add_argument('--batch', type=int, default=256)
    ap.add_argument('--lr', type=float, default=0.003)
    ap.add_argument('--mix', type=float, default=0.3)
    ap.add_argument('--k', type=float, default=400.0)
    ap.add_argument('--with-static', action='store_true')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--radius', type=int, default=4)
    ap.add_argument('--linear', action='store_true',
                    help='a linear correction instead: static value plus one weight per line key '
                         'and colour to move, summed over the empty cells')
    ap.add_argument('--l2', type=float, default=0.0)
    ap.add_argument('--check', help='print the logits of the first positions under this net')
    ap.add_argument('--min-count', type=int, default=3)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    print(f'seed {a.seed}')

    res, srch, stat, test, black, keys, ncell = load(a.dumps, a.radius)
    n = len(res)
    t = targets(res, srch, a.k, a.mix)
    train = ~test
    print(f'{n} positions, {int(test.sum())} held out; black to move {black.mean():.3f}')
    # Vocabulary: the pattern-byte pairs seen in training; others (and padding) map to 0, whose
    # vector stays zero.
    mask = np.zeros((n, CELLS), bool)
    for i, c in enumerate(ncell):
        mask[i, :c] = True
    counts = np.bincount(keys[train][mask[train]].ravel(), minlength=1 << (4 * a.radius))
    vocab = np.nonzero(counts >= a.min_count)[0]
    remap = np.zeros(1 << (4 * a.radius), np.int32)
    remap[vocab] = np.arange(1, len(vocab) + 1)
    ids = remap[keys]
    del keys
    ids[~mask] = 0
    V = len(vocab) + 1
    if V < 65536:
        ids = ids.astype(np.uint16)
    seen = mask[train].sum() * 4
    print(f'vocabulary {V - 1} line keys of radius {a.radius} seen at least {a.min_count} times '
          f'({counts[vocab].sum() / seen:.4f} of the training cells\' lines)')

    st_test, st_train = fit_static(stat, black, t, train, test, a.k)
    print(f'static value alone: held-out loss {st_test:.5f} (train {st_train:.5f})')
    print(f'constant: held-out loss {bce(np.full(test.sum(), t[train].mean()), t[test]):.5f}')

    F, H = a.features, a.hidden
    P = {
        'E': (rng.standard_normal((V, F)) * 0.1).astype(np.float32),
        'b0': np.full(F, 0.1, np.float32),
        'W1': (rng.standard_normal((2, F + 1, H)) * (1.0 / np.sqrt(F))).astype(np.float32),
        'c1': np.zeros((2, H), np.float32),
        'w2': (rng.standard_normal((2, H)) * (1.0 / np.sqrt(H))).astype(np.float32),
        'c2': np.zeros(2, np.float32),
        'ws': np.zeros(2, np.float32),
    }
    P['E'][0] = 0
    opt = Adam(P, a.lr)
    svals = (stat / a.k).astype(np.float32)
    colour = (~black).astype(np.int64)  # 0 = black to move

    if a.linear:
        return fit_linear(a, P, ids, mask, colour, svals, t, tr_idx_all := np.nonzero(train)[0],
                          np.nonzero(test)[0], rng, V, vocab, st_test)

    def forward(idx):
        e = P['E'][ids[idx]]  # B, C, 4, F
        h = e.sum(2) + P['b0']
        act = np.clip(h, 0, 1) * mask[idx][:, :, None]
        pooled = act.sum(1) / 32.0
        col = colour[idx]
        x = np.concatenate([pooled, np.ones((len(idx), 1), np.float32)], 1)
        z1 = np.einsum('bf,bfh->bh', x, P['W1'][col]) + P['c1'][col]
        r = np.maximum(z1, 0)
        out = (r * P['w2'][col]).sum(1) + P['c2'][col]
        if a.with_static:
            out = out + P['ws'][col] * svals[idx]
        return h, x, z1, r, out, col

    if a.check:
        W = read_net(a.check, P, vocab, remap)
        P.update(W)
        out = forward(np.arange(min(n, 20)))[4]
        for x in out:
            print(f'logit {x:.5f}')
        return 0

    def evaluate(idx_all):
        return mean_loss(lambda idx: forward(idx)[4], t, idx_all)

    tr_idx = np.nonzero(train)[0]
    te_idx = np.nonzero(test)[0]

    def step(idx):
        B = len(idx)
        h, x, z1, r, out, col = forward(idx)
        dout = (sigmoid(out) - t[idx]) / B
        g = {k: np.zeros_like(v) for k, v in P.items()}
        for c in (0, 1):
            m = col == c
            if not m.any():
                continue
            g['w2'][c] = (r[m] * dout[m, None]).sum(0)
            g['c2'][c] = dout[m].sum()
            g['ws'][c] = (dout[m] * svals[idx][m]).sum() if a.with_static else 0
        dr = dout[:, None] * P['w2'][col]
        dz1 = dr * (z1 > 0)
        for c in (0, 1):
            m = col == c
            if not m.any():
                continue
            g['W1'][c] = x[m].T @ dz1[m]
            g['c1'][c] = dz1[m].sum(0)
        dx = np.einsum('bh,bfh->bf', dz1, P['W1'][col])[:, :F]
        dh = (dx[:, None, :] / 32.0) * ((h > 0) & (h < 1)) * mask[idx][:, :, None]
        g['b0'] = dh.sum((0, 1))
        flat = ids[idx].reshape(-1)
        dflat = np.repeat(dh.reshape(-1, F), 4, axis=0)
        gE = np.zeros_like(P['E'])
        for f in range(F):
            gE[:, f] = np.bincount(flat, weights=dflat[:, f], minlength=V)
        gE[0] = 0
        g['E'] = gE
        opt.step(g)
        P['E'][0] = 0

    best = run_epochs(a, rng, tr_idx, te_idx, P, step, evaluate, st_test)
    lt, W = best
    print(f'best held-out loss {lt:.5f}')
    with open(a.out, 'w') as f:
        f.write(f'# cell network F={F} H={H} k={a.k} mix={a.mix} with_static={a.with_static} '
                f'held-out {lt:.5f} static {st_test:.5f}\n')
        f.write(f'{F} {H} {len(vocab)} {int(a.with_static)} {a.k} {a.radius}\n')
        for v, row in zip(vocab, W['E'][1:]):
            f.write(f'{v} ' + ' '.join(f'{x:.6g}' for x in row) + '\n')
        for name in ('b0', 'W1', 'c1', 'w2', 'c2', 'ws'):
            f.write(name + ' ' + ' '.join(f'{x:.6g}' for x in W[name].ravel()) + '\n')


if __name__ == '__main__':
    sys.exit(main())
