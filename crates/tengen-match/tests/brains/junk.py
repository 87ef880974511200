#!/usr/bin/env python3
"""A test brain that answers a move with junk."""
import common


def misbehave(board):
    return 'I think therefore I am'


common.run(misbehave)
