"""NNUE accumulator benchmark: the incremental update against a full refresh, per move played,
on 5×5, 6×6 and 9×9, and the cost of the dense layers after it.

    python benchmarks/nnue.py [--hidden 64] [--reps 200] [--search-only]

Then the search itself, in the same run: nodes per second (CPU time) of fixed-depth searches
with the linear evaluation, with a random network of that width (accumulators updated move by
move), with the network and a full refresh of both accumulators added at every evaluated
node (the search's test audit) — what evaluating without the incremental update would cost —
and with the same network reading the threat features too (their rows random as well), which
are computed afresh at every evaluation.

Each board replays the same random legal game (captures preferred, so hands fill and drops
follow) ``reps`` times: once updating the accumulators move by move, once refreshing both
perspectives after every move.  Both include making and unmaking the moves; the make/unmake-only
time is printed too.  There is no peer NNUE in the same run to compare against (Fairy-Stockfish's
variant NNUE is not built into the Debian binary), so the figure shown is ours against our own
full refresh, as a ratio.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from numba import njit

from komaken.shogi import Position, load_variant
from komaken.shogi._kernels import MAX_MOVES, R_NSQ, gen_legal, move_from, move_to, push, undo_move
from komaken.shogi.engine import Engine, Limits
from komaken.shogi.engine._evalfile import random_network
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


SEARCH_POSITIONS = [  # those of benchmarks/search.py, with a depth of about a second's linear search
    ("minishogi", "startpos", 12),
    ("minishogi", "rb1gk/1s2p/5/P1S2/KG1BR b - 5", 11),
    ("shogi", "startpos", 10),
    ("shogi", "ln1g3nl/1r2g1sk1/p1sppp1pp/2p3p2/1p5P1/2P1P1P2/PPSP1PS1P/1KG4R1/LN1G3NL b Bb 27", 9),
]


def _timed(engine: Engine, pos: Position, depth: int) -> tuple[int, float]:
    engine.search(pos, Limits(depth=2))  # compiled and warm
    t = time.process_time()
    r = engine.search(pos, Limits(depth=depth))
    return r.nodes, time.process_time() - t


def search_speed(hidden: int) -> None:
    """Nodes per second (CPU time) of the linear search and the network's, in the same run."""
    print(f"search, fixed depth, CPU time; random network 2x{hidden} -> 16 -> 16 -> 1; load {os.getloadavg()[0]:.1f}")
    print("position                        depth   linear n/s  network n/s  net/linear  net+refresh n/s  refresh cost"
          "  threats n/s  threats/net")
    for variant, sfen, depth in SEARCH_POSITIONS:
        pos = Position.start(variant) if sfen == "startpos" else Position.from_sfen(sfen, variant)
        net = random_network(load_variant(variant), hidden, seed=1)
        lin = _timed(Engine(variant, hash_mb=64), pos, depth)
        nn = _timed(Engine(variant, hash_mb=64, net=net), pos, depth - 2)
        audited = Engine(variant, hash_mb=64, net=net)
        audited._ctx.nn.audit[0] = 1  # type: ignore[union-attr]
        ref = _timed(audited, pos, depth - 2)
        thr = _timed(Engine(variant, hash_mb=64, net=random_network(load_variant(variant), hidden, seed=1,
                                                                    threats=True)), pos, depth - 2)
        rate = [n / max(t, 1e-9) for n, t in (lin, nn, ref, thr)]
        print(f"{variant[:5]} {sfen[:24]:24s} {depth:4d}/{depth - 2:<2d} {rate[0]:10.0f} {rate[1]:12.0f} "
              f"{rate[1] / rate[0]:10.2f} {rate[2]:16.0f} {rate[1] / rate[2]:12.2f}x {rate[3]:12.0f} "
              f"{rate[3] / rate[1]:12.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--search-only", action="store_true", help="only the search's nodes per second")
    a = ap.parse_args()
    if a.search_only:
        search_speed(a.hidden)
        return
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
    search_speed(a.hidden)


if __name__ == "__main__":
    main()
