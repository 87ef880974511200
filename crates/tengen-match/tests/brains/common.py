"""Shared loop for the misbehaving test brains: a correct Gomocup brain (it plays the first free
point near the centre) whose `misbehave(board)` hook may break the rules on its own move."""
import sys

W = H = 15
board = {}


def first_free():
    cx, cy = W // 2, H // 2
    for r in range(max(W, H)):
        for y in range(cy - r, cy + r + 1):
            for x in range(cx - r, cx + r + 1):
                if 0 <= x < W and 0 <= y < H and (x, y) not in board:
                    return x, y
    return 0, 0


def run(misbehave):
    """misbehave(board) returns a line to print instead of a good move, or None."""
    global W, H, board
    reading = False
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if reading:
            if line.upper() == 'DONE':
                reading = False
            else:
                x, y, c = (int(t) for t in line.split(','))
                board[(x, y)] = c
                continue
        else:
            cmd, _, arg = line.partition(' ')
            cmd = cmd.upper()
            if cmd == 'START':
                W = H = int(arg)
                board = {}
                print('OK', flush=True)
                continue
            if cmd == 'RECTSTART':
                W, H = (int(t) for t in arg.split(','))
                board = {}
                print('OK', flush=True)
                continue
            if cmd == 'BOARD':
                board = {}
                reading = True
                continue
            if cmd == 'TURN':
                x, y = (int(t) for t in arg.split(','))
                board[(x, y)] = 2
            elif cmd == 'END':
                return
            elif cmd != 'BEGIN':
                continue
        bad = misbehave(board)
        if bad is not None:
            print(bad, flush=True)
            continue
        x, y = first_free()
        board[(x, y)] = 1
        print(f'{x},{y}', flush=True)
