#!/usr/bin/env python3
"""A test brain that plays the moves given on its command line ("x,y" each), in order, whatever
the position: for testing the referee's verdicts (five, forbidden, off the board, move limit)."""
import common
import sys

script = list(sys.argv[1:])


def misbehave(board):
    if script:
        return script.pop(0)
    return None


common.run(misbehave)
