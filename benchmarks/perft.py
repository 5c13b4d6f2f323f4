"""Perft speed: komaken against the peers, measured in the same run.

    python benchmarks/perft.py [--mini-depth 6] [--shogi-depth 5]

Prints leaves/s for minishogi perft (vs minishogilib) and shogi perft (vs cshogi) and the
ratio ours / theirs.  Peers are driven the way their users drive them — from Python, with
bulk counting at the last ply (the length of the legal move list) — since neither ships a
perft of its own.  The first komaken call is made before timing, so JIT compilation (or
loading the cache) is not counted; the script also reports it.
"""

from __future__ import annotations

import argparse
import time


def _best(fn, repeat: int) -> tuple[int, float]:
    best = float("inf")
    nodes = 0
    for _ in range(repeat):
        t = time.perf_counter()
        nodes = fn()
        best = min(best, time.perf_counter() - t)
    return nodes, best


def minishogilib_perft(depth: int) -> int:
    import minishogilib

    pos = minishogilib.Position()
    pos.set_start_position()

    def rec(d: int) -> int:
        moves = pos.generate_moves()
        if d == 1:
            return len(moves)
        total = 0
        for m in moves:
            pos.do_move(m)
            total += rec(d - 1)
            pos.undo_move()
        return total

    return rec(depth)


def cshogi_perft(depth: int) -> int:
    import cshogi

    board = cshogi.Board()

    def rec(d: int) -> int:
        if d == 1:
            return len(board.legal_moves)
        total = 0
        for m in board.legal_moves:
            board.push(m)
            total += rec(d - 1)
            board.pop()
        return total

    return rec(depth)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mini-depth", type=int, default=6)
    ap.add_argument("--shogi-depth", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved runs of each; the best of each is reported")
    args = ap.parse_args()

    t = time.perf_counter()
    from komaken.shogi import Position

    Position.start("minishogi").perft(2)
    print(f"komaken import + first perft (JIT compile or cache load): {time.perf_counter() - t:.2f} s")

    rows = []
    for variant, depth, peer_name, peer in (
        ("minishogi", args.mini_depth, "minishogilib", minishogilib_perft),
        ("shogi", args.shogi_depth, "cshogi", cshogi_perft),
    ):
        ours_n, ours_t, theirs_n, theirs_t = 0, float("inf"), 0, float("inf")
        for _ in range(args.repeat):  # interleaved, so both see the same machine load
            n, t = _best(lambda v=variant, d=depth: Position.start(v).perft(d), 1)
            ours_n, ours_t = n, min(ours_t, t)
            n, t = _best(lambda d=depth, f=peer: f(d), 1)
            theirs_n, theirs_t = n, min(theirs_t, t)
        if ours_n != theirs_n:
            raise SystemExit(f"node counts differ on {variant} perft({depth}): {ours_n} vs {theirs_n}")
        ours, theirs = ours_n / ours_t, theirs_n / theirs_t
        rows.append((variant, depth, ours_n, ours, peer_name, theirs, ours / theirs))

    print(f"{'variant':<10} {'depth':>5} {'leaves':>10} {'komaken leaves/s':>17} {'peer':>13} "
          f"{'peer leaves/s':>14} {'ratio':>7}")
    for variant, depth, n, ours, peer_name, theirs, ratio in rows:
        print(f"{variant:<10} {depth:>5} {n:>10} {ours:>17,.0f} {peer_name:>13} {theirs:>14,.0f} {ratio:>6.2f}x")


if __name__ == "__main__":
    main()
