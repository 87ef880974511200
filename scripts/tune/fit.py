#!/usr/bin/env python3
"""Fits the evaluation's weights to game results (Texel-style logistic regression).

usage: fit.py FEATURES.csv OUTDIR [--search-weight W]

Writes OUTDIR/freestyle.txt and OUTDIR/renju.txt (for each rule FEATURES.csv holds positions
of), the weights files the engine embeds from crates/tengen-engine/data/eval/ and
`pbrain-tengen --eval FILE` reads.

FEATURES.csv is what `cargo run --release -p tengen-engine --example eval_features` prints.
For freestyle and for renju apart: positions are in game order, the first 80% train and the
last 20% are held out. The model is an intercept (having the move) and the features, fitted by
Newton's method with an L2 penalty on the standardised features (stronger for renju, which
has five times fewer positions: 1e-2 there held out as well as any and moved the weights least); the printed weights are
a logit times 150, the engine's evaluation unit. Whether black is to move is left out: it
soaks up the random openings' bias, which the engine must not learn. Needs numpy.

With a `search` column (`eval_features --search-nodes N`) and `--search-weight W` (0 to 1), the
target is no longer the result alone but W times the search's verdict (its score read as a logit
at the evaluation's scale) plus 1 - W times the result: the evaluation learns what a search of
the position would say as well as who won. Held-out losses are always against the results.
"""
import sys

import numpy as np

SCALE = 150
L2 = {0: 1e-3, 1: 1e-2}
PATS = ["two", "two_open", "three", "three_open", "four", "four_double", "four_open"]

data = np.genfromtxt(sys.argv[1], delimiter=",", names=True)
names = [n for n in data.dtype.names if n not in ("result", "rule", "black_to_move", "search")]
SEARCH_WEIGHT = 0.0
if "--search-weight" in sys.argv:
    SEARCH_WEIGHT = float(sys.argv[sys.argv.index("--search-weight") + 1])
    if "search" not in data.dtype.names or not 0 <= SEARCH_WEIGHT <= 1:
        sys.exit("--search-weight needs a search column and a weight from 0 to 1")


def loss(z, y):
    p = np.clip(1 / (1 + np.exp(-np.clip(z, -30, 30))), 1e-9, 1 - 1e-9)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def hand_set_loss(rows, cut):
    """Held-out loss of the hand-set evaluation at its best scale, for comparison."""
    col = {n: rows[n].astype(float) for n in names}
    pat_w = [2, 6, 6, 20, 24, 60, 80]
    e = sum(w * 6 / 5 * col["own_" + p] - w * col["opp_" + p] for w, p in zip(pat_w, PATS))
    e = e + 800 * col["fork_to_make"] - 150 * col["forks_against"]
    y = rows["result"]
    return min(loss(e[cut:] / k, y[cut:]) for k in (100, 200, 300, 400, 600, 800, 1000, 1500))


def fit(rows, l2):
    y = rows["result"]
    target = y
    if SEARCH_WEIGHT > 0:
        verdict = 1 / (1 + np.exp(-rows["search"] / SCALE))
        target = SEARCH_WEIGHT * verdict + (1 - SEARCH_WEIGHT) * y
    x = np.column_stack([rows[n] for n in names] + [np.ones(len(y))]).astype(float)
    cut = int(len(y) * 0.8)
    scale = x[:cut].std(0)
    scale[scale == 0] = 1
    scale[-1] = 1
    z = x[:cut] / scale
    w = np.zeros(z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - target[:cut]) / cut + l2 * w
        hess = (z * (p * (1 - p))[:, None]).T @ z / cut + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    w = w / scale
    return {
        "positions": len(y),
        "train": loss(x[:cut] @ w, y[:cut]),
        "held_out": loss(x[cut:] @ w, y[cut:]),
        "hand_set": hand_set_loss(rows, cut),
        "weights": dict(zip(names + ["tempo"], (int(round(v * SCALE)) for v in w))),
    }


def target_name():
    if SEARCH_WEIGHT == 0:
        return "game results"
    if SEARCH_WEIGHT == 1:
        return "searches' scores"
    return f"searches' scores ({SEARCH_WEIGHT:g}) and game results ({1 - SEARCH_WEIGHT:g})"


def weights_file(rule, f):
    """The engine's weights file: `name value` lines, the fit's figures as comments."""
    lines = [
        "# Written by scripts/tune/fit.py (see scripts/tune/README.md); not edited by hand.",
        f"# {rule}: weights fitted to {target_name()} ({f['positions']:,} quiet positions; held-out",
        f"# log loss {f['hand_set']:.3f} with the hand-set weights at their best scale, "
        f"{f['held_out']:.3f} fitted).",
    ]
    # A threat mask the games never showed weighs nothing; the engine reads an absent weight
    # as zero, so only the others are written.
    lines += [
        f"{name} {value}"
        for name, value in f["weights"].items()
        if value != 0 or not name.startswith("threat_")
    ]
    return "\n".join(lines) + "\n"


out_dir = sys.argv[2]
for code, rule in [(0, "Freestyle"), (1, "Renju")]:
    rows = data[data["rule"] == code]
    if len(rows) == 0:
        continue
    f = fit(rows, L2[code])
    print(f"{rule}: {f['positions']} positions, held-out loss hand-set {f['hand_set']:.4f}, "
          f"fitted {f['held_out']:.4f} (train {f['train']:.4f})", file=sys.stderr)
    with open(f"{out_dir}/{rule.lower()}.txt", "w") as out:
        out.write(weights_file(rule, f))
