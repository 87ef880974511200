#!/usr/bin/env python3
"""Fits the evaluation's weights to game results (Texel-style logistic regression).

usage: fit.py FEATURES.csv RULE     (RULE: 0 freestyle, 1 renju)

FEATURES.csv is what `cargo run --release -p tengen-engine --example eval_features` prints.
Positions are in game order; the first 80% train, the last 20% are held out. Features are
standardised, the model (an intercept, the features, and whether black is to move, which
soaks up the openings' bias and is not used by the engine) is fitted by 3000 steps of
gradient descent, and the weights are printed at the engine's scale (a logit times 600).
Needs numpy.
"""
import sys

import numpy as np

data = np.genfromtxt(sys.argv[1], delimiter=",", names=True)
names = [n for n in data.dtype.names if n not in ("result", "rule")]
rows = data[data["rule"] == int(sys.argv[2])]
y = rows["result"]
x = np.column_stack([rows[n] for n in names]).astype(float)
cut = int(len(y) * 0.8)


def loss(w, b, x, y):
    p = np.clip(1 / (1 + np.exp(-np.clip(x @ w + b, -30, 30))), 1e-6, 1 - 1e-6)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


scale = x[:cut].std(0) + 1e-9
z = x[:cut] / scale
w = np.zeros(len(names))
b = 0.0
for _ in range(3000):
    p = 1 / (1 + np.exp(-np.clip(z @ w + b, -30, 30)))
    w -= 0.5 * z.T @ (p - y[:cut]) / cut
    b -= 0.5 * np.mean(p - y[:cut])
w = w / scale
print(f"positions {len(y)}: train loss {loss(w, b, x[:cut], y[:cut]):.4f}, "
      f"held-out {loss(w, b, x[cut:], y[cut:]):.4f}")
for name, v in zip(names, w):
    print(f"{name:>18} {v * 600:9.1f}")
