#!/usr/bin/env python3
"""A test brain that plays a point already taken once there is a stone on the board."""
import common


def misbehave(board):
    if board:
        x, y = next(iter(board))
        return f'{x},{y}'
    return None


common.run(misbehave)
