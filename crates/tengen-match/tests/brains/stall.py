#!/usr/bin/env python3
"""A test brain that answers START and then never answers a move (it sleeps for ever)."""
import time
import common


def misbehave(board):
    while True:
        time.sleep(60)


common.run(misbehave)
