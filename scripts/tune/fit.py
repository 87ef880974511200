#!/usr/bin/env python3
"""Fits the evaluation's weights to game results (Texel-style logistic regression).

usage: fit.py FEATURES.csv OUTDIR [--search-weight W] [--threats-over DIR] [--no-threats]
              [--minus-parent]

Writes OUTDIR/freestyle.txt, OUTDIR/renju.txt, OUTDIR/standard.txt and OUTDIR/caro.txt (for
each rule FEATURES.csv holds positions of), the weights files the engine embeds from
crates/tengen-engine/data/eval/ and `pbrain-tengen --eval FILE` reads.

FEATURES.csv is what `cargo run --release -p tengen-engine --example eval_features` prints.
For each rule apart: positions are in game order, the first 80% train and the
last 20% are held out. The model is an intercept (having the move) and the features, fitted by
Newton's method with an L2 penalty on the standardised features (stronger for renju, which
has five times fewer positions: 1e-2 there held out as well as any and moved the weights least); the printed weights are
a logit times 150, the engine's evaluation unit. Whether black is to move is left out: it
soaks up the random openings' bias, which the engine must not learn. Needs numpy.

With a `search` column (`eval_features --search-nodes N`) and `--search-weight W` (0 to 1), the
target is no longer the result alone but W times the search's verdict (its score read as a logit
at the evaluation's scale) plus 1 - W times the result: the evaluation learns what a search of
the position would say as well as who won. Held-out losses are always against the results.

With `--no-threats` the threat masks are left out of the fit (their weights stay zero): caro's
fit with its 106 masks lost in games where the same fit without them won.

With `--minus-parent` FEATURES.csv holds each position's features less those of the position
before it (`eval_features --minus-parent`), and the weights files say `minus_parent 1`: the
engine then evaluates that difference, as the fit did.

With `--threats-over DIR` the weights of DIR's file for the rule are kept as they are and only
the threat masks (and the tempo) are fitted on top of them: a mask's weight is the sum of a term
for each of its nine threats and one for each pair of them (45 terms, not 512 free weights, so
rare masks borrow from the common ones).
"""
import itertools
import sys

import numpy as np

SCALE = 150
# The rules by eval_features' code, each with its L2 penalty: the rules with fewer positions than
# freestyle take renju's.
RULES = [(0, "Freestyle", 1e-3), (1, "Renju", 1e-2), (2, "Standard", 1e-2), (3, "Caro", 1e-2)]
PATS = ["two", "two_open", "three", "three_open", "four", "four_double", "four_open"]

data = np.genfromtxt(sys.argv[1], delimiter=",", names=True)
names = [n for n in data.dtype.names if n not in ("result", "rule", "black_to_move", "search")]
if "--no-threats" in sys.argv:
    names = [n for n in names if not n.startswith("threat_")]
THREATS_OVER = None
if "--threats-over" in sys.argv:
    THREATS_OVER = sys.argv[sys.argv.index("--threats-over") + 1]
MINUS_PARENT = "--minus-parent" in sys.argv
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


def target_of(rows):
    """What the fit predicts: the result, or blended with the search's verdict."""
    y = rows["result"]
    if SEARCH_WEIGHT == 0:
        return y
    verdict = 1 / (1 + np.exp(-rows["search"] / SCALE))
    return SEARCH_WEIGHT * verdict + (1 - SEARCH_WEIGHT) * y


def newton(x, target, cut, l2, offset=0.0):
    """The weights of x (last column the intercept) that fit target on the first `cut` rows
    (a logistic model over `offset`, in logits), by Newton's method with an L2 penalty on the
    standardised columns."""
    scale = x[:cut].std(0)
    scale[scale == 0] = 1
    scale[-1] = 1
    z = x[:cut] / scale
    off = offset[:cut] if np.ndim(offset) else offset
    w = np.zeros(z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(off + z @ w, -30, 30)))
        grad = z.T @ (p - target[:cut]) / cut + l2 * w
        hess = (z * (p * (1 - p))[:, None]).T @ z / cut + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return w / scale


def fit(rows, l2):
    y = rows["result"]
    x = np.column_stack([rows[n] for n in names] + [np.ones(len(y))]).astype(float)
    cut = int(len(y) * 0.8)
    w = newton(x, target_of(rows), cut, l2)
    return {
        "positions": len(y),
        "train": loss(x[:cut] @ w, y[:cut]),
        "held_out": loss(x[cut:] @ w, y[cut:]),
        "hand_set": hand_set_loss(rows, cut),
        "weights": dict(zip(names + ["tempo"], (int(round(v * SCALE)) for v in w))),
    }


def read_weights(path):
    """A weights file's `name value` lines."""
    weights = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                name, value = line.split()
                weights[name] = int(value)
    return weights


def fit_threats(rows, l2, base):
    """The threat masks' weights and the tempo over `base`'s other weights, kept fixed."""
    y = rows["result"]
    kept = [n for n in names if not n.startswith("threat_")]
    masks = [n for n in names if n.startswith("threat_")]
    offset = (sum(base.get(n, 0) * rows[n].astype(float) for n in kept) + base.get("tempo", 0))
    offset = offset / SCALE
    # Column m of the masks is mask m (eval_features writes them in order): its nine threats.
    mask = np.column_stack([rows[n] for n in masks]).argmax(1)
    bits = (mask[:, None] >> np.arange(9)) & 1
    terms = [(i,) for i in range(9)] + list(itertools.combinations(range(9), 2))
    x = np.column_stack([bits[:, list(t)].prod(1) for t in terms] + [np.ones(len(y))])
    x = x.astype(float)
    cut = int(len(y) * 0.8)
    w = newton(x, target_of(rows), cut, l2, offset)
    weights = {n: base.get(n, 0) for n in kept}
    for m, n in enumerate(masks):
        weights[n] = int(round(SCALE * sum(c for t, c in zip(terms, w) if all(m >> i & 1 for i in t))))
    weights["tempo"] = base.get("tempo", 0) + int(round(w[-1] * SCALE))
    z_all = offset + x @ w
    return {
        "positions": len(y),
        "train": loss(z_all[:cut], y[:cut]),
        "held_out": loss(z_all[cut:], y[cut:]),
        "base_held_out": loss(offset[cut:], y[cut:]),
        "hand_set": hand_set_loss(rows, cut),
        "weights": weights,
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
    if "base_held_out" in f:
        lines.append(
            f"# Only the threat masks and the tempo fitted, over the other weights of "
            f"{THREATS_OVER}/{rule.lower()}.txt (held-out log loss {f['base_held_out']:.3f} alone)."
        )
    if MINUS_PARENT:
        lines.append("minus_parent 1")
    # A threat mask the games never showed weighs nothing; the engine reads an absent weight
    # as zero, so only the others are written.
    lines += [
        f"{name} {value}"
        for name, value in f["weights"].items()
        if value != 0 or not name.startswith("threat_")
    ]
    return "\n".join(lines) + "\n"


out_dir = sys.argv[2]
for code, rule, l2 in RULES:
    rows = data[data["rule"] == code]
    if len(rows) == 0:
        continue
    if THREATS_OVER:
        f = fit_threats(rows, l2, read_weights(f"{THREATS_OVER}/{rule.lower()}.txt"))
    else:
        f = fit(rows, l2)
    print(f"{rule}: {f['positions']} positions, held-out loss hand-set {f['hand_set']:.4f}, "
          f"fitted {f['held_out']:.4f} (train {f['train']:.4f})", file=sys.stderr)
    with open(f"{out_dir}/{rule.lower()}.txt", "w") as out:
        out.write(weights_file(rule, f))
