"""Chess perft speed: komaken's numba mailbox against python-chess, measured in the same run.

    python benchmarks/chess_perft.py [--depth 5] [--peer-depth 4] [--repeat 3]

Both count the same trees (start position and Kiwipete) with bulk counting at the last ply:
komaken calls ``Board.perft`` (one numba call for the whole tree); python-chess is driven as
its users drive it, ``push``/``pop`` and ``legal_moves.count()`` at the last ply.  Each figure
is the best of ``--repeat`` runs in leaves per second, and the ratio ours / theirs is printed.
python-chess walks a shallower tree by default (``--peer-depth``) because it is much slower;
leaves per second barely depend on the depth once the tree has some thousands of leaves.

The first komaken call is made before timing, so numba compilation (or loading its cache) is
not counted; the script reports it separately.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import chess

from komaken.chess import Board

POSITIONS = {
    "start": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "kiwipete": "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
}


def peer_perft(board: chess.Board, depth: int) -> int:
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += peer_perft(board, depth - 1)
        board.pop()
    return total


def best_rate(fn: Callable[[], int], repeat: int) -> tuple[int, float]:
    """Leaves and the best leaves/s over ``repeat`` runs."""
    best, leaves = float("inf"), 0
    for _ in range(repeat):
        t = time.perf_counter()
        leaves = fn()
        best = min(best, time.perf_counter() - t)
    return leaves, leaves / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=5)
    parser.add_argument("--peer-depth", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    t = time.perf_counter()
    Board().perft(2)
    print(f"numba compile/cache load: {time.perf_counter() - t:.2f} s (not counted)")
    print(f"python-chess {chess.__version__}")
    for name, fen in POSITIONS.items():
        depth = args.depth if name == "start" else args.depth - 1
        peer_depth = args.peer_depth if name == "start" else args.peer_depth - 1
        ours_leaves, ours = best_rate(lambda f=fen, d=depth: Board(f).perft(d), args.repeat)
        peer_leaves, peer = best_rate(lambda f=fen, d=peer_depth: peer_perft(chess.Board(f), d), args.repeat)
        print(
            f"{name:9s} komaken perft({depth}) = {ours_leaves:>9,d}  {ours / 1e6:7.2f} M leaves/s | "
            f"python-chess perft({peer_depth}) = {peer_leaves:>9,d}  {peer / 1e6:6.3f} M leaves/s | "
            f"ratio {ours / peer:6.0f}x"
        )


if __name__ == "__main__":
    main()
