#!/usr/bin/env python3
"""A test brain that exits without a word on its second move."""
import sys
import common

moves = 0


def misbehave(board):
    global moves
    moves += 1
    if moves == 2:
        print('about to fall over', file=sys.stderr, flush=True)
        sys.exit(3)
    return None


common.run(misbehave)
