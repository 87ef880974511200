#!/usr/bin/env python3
"""Turns game records (the `.txt` files `tengen match --out DIR` writes), one path a line on
standard input, into the tuning's game list on standard output: one finished game a line,
`RULE RESULT MOVES...` (RESULT is black's score: 1, 0.5 or 0). Unfinished games are skipped.

usage: ls DIR/*.txt | scripts/tune/records_to_games.py | gzip > scripts/tune/data/games.txt.gz
"""
import sys

SCORES = {"1-0": "1", "0-1": "0", "1/2-1/2": "0.5"}

for path in sys.stdin.read().split():
    rule, result, moves = None, None, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# rule: "):
                rule = line[len("# rule: "):].split(",")[0]
            elif line.startswith("# result: "):
                result = SCORES.get(line[len("# result: "):].strip())
            elif line and not line.startswith("#"):
                moves = line
    if rule and result and moves:
        print(rule, result, moves)
