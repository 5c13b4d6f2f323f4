"""NNUE accumulator benchmark: the incremental update against a full refresh, per move played,
on 5×5, 6×6 and 9×9, and the cost of the dense layers after it.

    python benchmarks/nnue.py [--hidden 64] [--reps 200]

Each board replays the same random legal game (captures preferred, so hands fill and drops
follow) ``reps`` times: once updating the accumulators move by move, once refreshing both
perspectives after every move.  Both include making and unmaking the moves; the make/unmake-only
time is printed too.  There is no peer NNUE in the same run to compare against (Fairy-Stockfish's
variant NNUE is not built into the Debian binary), so the figure shown is ours against our own
full refresh, as a ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from komaken.shogi import Position
from komaken.shogi._kernels import MAX_MOVES, R_NSQ, gen_legal, move_from, move_to, push, undo_move
from komaken.shogi.engine._nnue import MAX_CHANGES, changes, forward, n_features, refresh, square_index, update


@njit  # not cached: a cached caller keeps the callees it was compiled with when _nnue.py changes
def _replay(bd: np.ndarray, hd: np.ndarray, st: np.ndarray, hh: np.ndarray, hist: np.ndarray, rules: np.ndarray,
            inv: np.ndarray, w: np.ndarray, bias: np.ndarray, moves: np.ndarray, reps: int, mode: int,
            acc: np.ndarray) -> None:
    pieces = np.zeros(MAX_CHANGES, dtype=np.int64)
    squares = np.zeros(MAX_CHANGES, dtype=np.int64)
    signs = np.zeros(MAX_CHANGES, dtype=np.int64)
    for _ in range(reps):
        for ply in range(len(moves)):
            mv = moves[ply]
            if mode == 1:
                n = changes(bd, hd, st, mv, pieces, squares, signs)
                push(bd, hd, st, hh, hist, rules, mv)
                update(bd, hd, st, rules, inv, w, bias, n, pieces, squares, signs, acc[ply], acc[ply + 1])
            else:
                push(bd, hd, st, hh, hist, rules, mv)
                if mode == 2:
                    for c in range(2):
                        refresh(bd, hd, st, rules, inv, w, bias, c, acc[ply + 1, c])
        for _ in range(len(moves)):
            undo_move(bd, hd, st, hist)


def _game(variant: str, plies: int, seed: int) -> np.ndarray:
    s = Position.start(variant).kernel_state(plies + 2)
    rng = np.random.default_rng(seed)
    buf = np.zeros(MAX_MOVES, dtype=np.int64)
    out = []
    for _ in range(plies):
        n = gen_legal(s.bd, s.hd, s.st, s.geo, s.rules, buf)
        if n == 0 or s.st[2] == 0 or s.st[3] == 0:
            break
        caps = [m for m in buf[:n] if move_from(m) != 0 and s.bd[move_to(m)] != 0]
        mv = int(rng.choice(caps) if caps and rng.random() < 0.5 else buf[rng.integers(n)])
        push(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, mv)
        out.append(mv)
    return np.array(out, dtype=np.int64)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--reps", type=int, default=200)
    a = ap.parse_args()
    print(f"accumulator width {a.hidden}; ns per move (make + accumulator + unmake)")
    print("variant     plies  make/unmake  incremental  full refresh  refresh/incremental")
    for variant in ("minishogi", "judkins", "shogi"):
        moves = _game(variant, 120, 1)
        s = Position.start(variant).kernel_state(len(moves) + 2)
        nsq = int(s.rules[R_NSQ])
        rng = np.random.default_rng(0)
        w = rng.integers(-64, 64, size=(n_features(nsq), a.hidden)).astype(np.int16)
        bias = np.zeros(a.hidden, dtype=np.int32)
        inv = square_index(s.rules)
        acc = np.zeros((len(moves) + 1, 2, a.hidden), dtype=np.int32)
        for c in range(2):
            refresh(s.bd, s.hd, s.st, s.rules, inv, w, bias, c, acc[0, c])
        per = {}
        for mode in (0, 1, 2):
            _replay(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, inv, w, bias, moves, 1, mode, acc)  # compile, warm
            t = time.perf_counter()
            _replay(s.bd, s.hd, s.st, s.hh, s.hist, s.rules, inv, w, bias, moves, a.reps, mode, acc)
            per[mode] = (time.perf_counter() - t) / (a.reps * len(moves)) * 1e9
        print(f"{variant:10s} {len(moves):6d} {per[0]:12.0f} {per[1]:12.0f} {per[2]:13.0f} {per[2] / per[1]:15.1f}x")
    l1w = rng.integers(-64, 64, size=(16, 2 * a.hidden)).astype(np.int64)
    l2w = rng.integers(-64, 64, size=(16, 16)).astype(np.int64)
    zeros16 = np.zeros(16, dtype=np.int64)
    ow = rng.integers(-64, 64, size=16).astype(np.int64)
    us, them = acc[1, 0].astype(np.int64), acc[1, 1].astype(np.int64)
    forward(us, them, l1w, zeros16, l2w, zeros16, ow, 0)
    t = time.perf_counter()
    for _ in range(20000):
        forward(us, them, l1w, zeros16, l2w, zeros16, ow, 0)
    print(f"dense layers 2x{a.hidden} -> 16 -> 16 -> 1, called from Python: "
          f"{(time.perf_counter() - t) / 20000 * 1e9:.0f} ns per evaluation (includes the call overhead)")


if __name__ == "__main__":
    main()
