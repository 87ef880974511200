#!/usr/bin/env python3
"""Fits the move-ordering weights to the moves played in games (softmax regression).

usage: fit_order.py ORDER.bin OUTDIR [TABLE...]

ORDER.bin is what `cargo run --release -p tengen-engine --example order_features` writes from
the tuning's game list. For each of the five tables (freestyle; renju with black to move;
renju with white to move; standard; caro) apart: positions are in game order, the first
80% train and the last 20% are held out. A candidate's score is the sum of its twelve table
weights; the model is the softmax of the scores over the position's candidates, the target the
move played, fitted by full-batch Adam with a small L2 penalty. The hand-set ordering (pattern
weights, the opponent's at 4/5) is scored the same way at its best temperature, for comparison.
Writes OUTDIR/order_{freestyle,renju_black,renju_white,standard,caro}.txt (or only the TABLEs
named): one weight a line, in units where the hand-set ordering's spread is matched (so the
search's history keeps its weight).
"""
import sys

import numpy as np

TABLES = ["freestyle", "renju_black", "renju_white", "standard", "caro"]
ORDER_WEIGHT = np.array([0, 4, 12, 14, 60, 70, 500, 600, 10_000, 0], dtype=np.float64)
PATS, PAIRS, PLACES = 10, 26, 9
N_WEIGHTS = 2 * PATS + 2 * PAIRS + 2 * PLACES
L2 = 1e-4
# Freestyle's table (tried, not embedded) leaves out where the last two stones are: with them it
# lost in self-play (-11, H0), without them it scored +20 +/- 28 (no decision; docs/levels.md).
# Renju's keep them (+35, H1).
WITHOUT_PLACES = {"freestyle"}

rec = np.dtype([("pos", "<u4"), ("table", "u1"), ("forced", "u1"), ("played", "u1"),
                ("score", "u1"), ("f", "<u2", (12,))])
data = np.fromfile(sys.argv[1], dtype=rec)
out_dir = sys.argv[2]
only = sys.argv[3:]


def groups(pos):
    starts = np.flatnonzero(np.r_[True, pos[1:] != pos[:-1]])
    return starts


def log_softmax(s, starts):
    m = np.maximum.reduceat(s, starts)
    sizes = np.diff(np.r_[starts, len(s)])
    m_rows = np.repeat(m, sizes)
    e = np.exp(s - m_rows)
    z = np.add.reduceat(e, starts)
    return s - m_rows - np.repeat(np.log(z), sizes), sizes


def stats(s, played, starts):
    ls, sizes = log_softmax(s, starts)
    nll = -ls[played == 1].sum() / len(starts)
    # The rank of the played move among its position's candidates (0 = first).
    idx = np.flatnonzero(played == 1)
    grp = np.repeat(np.arange(len(starts)), sizes)
    better = (s > np.repeat(s[idx], sizes)).astype(np.int64)
    ranks = np.add.reduceat(better, starts)
    return nll, (ranks == 0).mean(), (ranks < 6).mean(), (ranks < 9).mean()


def hand_scores(f):
    own = ORDER_WEIGHT[f[:, 0:4]].sum(1)
    opp = ORDER_WEIGHT[f[:, 4:8] - PATS].sum(1)
    return own + opp * 0.8


def fit(f, played, starts, steps=600, lr=0.05):
    w = np.zeros(N_WEIGHTS)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for t in range(1, steps + 1):
        s = w[f].sum(1)
        ls, sizes = log_softmax(s, starts)
        p = np.exp(ls)
        r = p - played
        g = np.zeros(N_WEIGHTS)
        for j in range(f.shape[1]):
            g += np.bincount(f[:, j], weights=r, minlength=N_WEIGHTS)
        g = g / len(starts) + L2 * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w -= lr * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return w


for t, name in enumerate(TABLES):
    d = data[data["table"] == t]
    if len(d) == 0 or (only and name not in only):
        continue
    if name in WITHOUT_PLACES:
        # Every place to the one "far" slot: the fit then ignores where the last stones are.
        d = d.copy()
        d["f"][:, 10] = 2 * PATS + 2 * PAIRS + PLACES - 1
        d["f"][:, 11] = 2 * PATS + 2 * PAIRS + 2 * PLACES - 1
    positions = np.unique(d["pos"])
    cut = positions[int(len(positions) * 0.8)]
    train, test = d[d["pos"] < cut], d[d["pos"] >= cut]
    f_tr, f_te = train["f"].astype(np.int64), test["f"].astype(np.int64)
    y_tr, y_te = train["played"].astype(np.float64), test["played"].astype(np.float64)
    st_tr, st_te = groups(train["pos"]), groups(test["pos"])
    h_tr, h_te = hand_scores(f_tr), hand_scores(f_te)
    best_beta = min(np.geomspace(1e-3, 1, 40), key=lambda b: stats(h_tr * b, y_tr, st_tr)[0])
    w = fit(f_tr, y_tr, st_tr)
    print(f"{name}: {len(positions)} positions, {len(d)} candidates")
    for label, s in [("hand-set", h_te * best_beta), ("fitted", w[f_te].sum(1))]:
        nll, top1, top6, top9 = stats(s, y_te, st_te)
        print(f"  {label:9} held-out loss {nll:.3f}  played move first {top1:.3f}, "
              f"in the first 6 {top6:.3f}, first 9 {top9:.3f}")
    # Match the hand-set ordering's spread over the training candidates.
    scale = h_tr.std() / w[f_tr].sum(1).std()
    with open(f"{out_dir}/order_{name}.txt", "w") as o:
        for x in w * scale:
            o.write(f"{int(round(x))}\n")
    print(f"  scale {scale:.1f}")
