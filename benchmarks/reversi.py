"""Reversi speed: perft leaves/s and the exact endgame solver on 14 empties.

    python benchmarks/reversi.py [--depth 10] [--peer-depth 8] [--positions 10] [--empties 14]

* perft from the start position with bulk counting at the last ply (a popcount of the move
  bitboard); the target is at least 10M leaves/s at depth 10.
* if the ``creversi-python`` package is installed (``pip install creversi-python``), its
  perft is measured in the same run, driven as its users drive it (copy, move, and
  ``len(legal_moves)`` at the last ply), and the ratio ours / theirs is printed at the same
  depth.  It has no endgame solver, so the solver is measured alone.
* the endgame solver on a fixed set of positions: random playouts from the start (seeds
  0, 1, 2 ...) stopped at exactly ``--empties`` empty squares.

The first komaken call is made before timing, so JIT compilation (or loading numba's cache)
is not counted; the script reports it separately.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from komaken.reversi import Reversi, search


def _best(fn: Callable[[], int], repeat: int) -> tuple[int, float]:
    best, nodes = float("inf"), 0
    for _ in range(repeat):
        t = time.perf_counter()
        nodes = fn()
        best = min(best, time.perf_counter() - t)
    return nodes, best


def peer_perft(depth: int) -> int | None:
    """creversi-python's perft, or ``None`` when it is not installed."""
    try:
        import creversi
    except ImportError:
        return None

    def rec(board: creversi.Board, d: int) -> int:
        if board.is_game_over():
            return 1
        moves = board.legal_moves
        if d == 1:
            return len(moves)  # a pass shows up as one move, as in komaken
        total = 0
        for m in moves:
            child = board.copy()
            child.move(m)
            total += rec(child, d - 1)
        return total

    return rec(creversi.Board(), depth)


def endgame_positions(count: int, empties: int) -> list[Reversi]:
    """Deterministic positions: random playouts (seed 0, 1, ...) stopped at ``empties``."""
    positions: list[Reversi] = []
    seed = 0
    while len(positions) < count:
        rng = random.Random(seed)
        p = Reversi.start()
        while p.empties > empties and (moves := p.legal_moves()):
            p.push(rng.choice(moves))
        if p.empties == empties and p.outcome() is None:
            positions.append(Reversi.from_text(p.to_text()))
        seed += 1
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--peer-depth", type=int, default=8)
    parser.add_argument("--positions", type=int, default=10)
    parser.add_argument("--empties", type=int, default=14)
    args = parser.parse_args()

    start = Reversi.start()
    t = time.perf_counter()
    start.perft(2)
    search(Reversi.from_transcript("f5d6c3"), depth=2, endgame_empties=0)
    print(f"JIT compile / cache load: {time.perf_counter() - t:.2f}s")

    print("\nperft (start position, bulk counting at the last ply)")
    for depth in range(max(1, args.depth - 1), args.depth + 1):
        nodes, secs = _best(lambda d=depth: start.perft(d), 3 if depth < 10 else 2)
        print(f"  komaken depth {depth:2d}: {nodes:>12,d} leaves in {secs:6.3f}s = {nodes / secs / 1e6:7.1f}M leaves/s")

    ours, ours_s = _best(lambda: start.perft(args.peer_depth), 3)
    t = time.perf_counter()
    theirs = peer_perft(args.peer_depth)
    theirs_s = time.perf_counter() - t
    if theirs is None:
        print("  peer: creversi-python is not installed (pip install creversi-python); ours only")
    else:
        agree = "same count" if theirs == ours else f"COUNTS DIFFER ({theirs} vs {ours})"
        print(
            f"  creversi-python depth {args.peer_depth}: {theirs:,d} leaves in {theirs_s:.3f}s = "
            f"{theirs / theirs_s / 1e6:.2f}M leaves/s ({agree})"
        )
        print(f"  ratio komaken / creversi-python at depth {args.peer_depth}: {theirs_s / ours_s:,.0f}x")

    print(f"\nendgame solver: {args.positions} positions with {args.empties} empties (random playouts)")
    times = []
    total_nodes = 0
    for i, p in enumerate(endgame_positions(args.positions, args.empties)):
        t = time.perf_counter()
        result = search(p, endgame_empties=args.empties)
        secs = time.perf_counter() - t
        times.append(secs)
        total_nodes += result.nodes
        print(
            f"  #{i}: best {result.move!s:4} score {result.score:+3d}  "
            f"{result.nodes:>10,d} nodes  {secs:7.3f}s  {p.to_text()}"
        )
    total = sum(times)
    print(
        f"  total {total:.2f}s, mean {statistics.mean(times):.3f}s, max {max(times):.3f}s, "
        f"{total_nodes / total / 1e6:.1f}M nodes/s"
    )
    print("  (no peer library with an endgame solver installed: ours only)")


if __name__ == "__main__":
    main()
