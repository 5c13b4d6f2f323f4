"""Self-play benchmark: whole games in the numba kernel against the Python game loop.

    python benchmarks/values.py [--nodes 1000] [--games 60] [--peer-games 6] [--variants minishogi,judkins,...]

For each board size: games/s and positions/s (plies/s) of :func:`komaken.shogi.engine._selfplay.play_game`
(one process; it also computes every position's features and quiet flag), and, as the peer in
the same run, the lab's Python game loop — :func:`komaken.match.play_game` with two
``EnginePlayer`` objects at the same node budget, the same transposition-table size and noise —
on the first ``--peer-games`` of the same games (same openings and seeds, so the same moves),
and again with the players' default 16 MB table (as ``komaken experiment`` runs them; the moves
then differ, since a bigger table changes the search).
The ratio compares plies per second, which does not depend on how long the chosen games are.
Rates are per CPU-second of this process (``time.process_time``): on a shared machine the wall
clock mostly measures the other users; per CPU-second is the per-core figure.  The wall-clock
games/s of the kernel is printed too.
"""

from __future__ import annotations

import argparse
import time

from komaken.lab.valuestudy.selfplay import default_max_plies
from komaken.match import play_game as python_play_game
from komaken.players.engine import EnginePlayer
from komaken.shogi import Position
from komaken.shogi.engine.selfplay import SelfPlay
from komaken.shogi.position import Move
from komaken.shogi.variant import load_variant

NOISE = 10


def kernel_games(variant_name: str, nodes: int, games: int) -> tuple[float, float, float, list[list[int]]]:
    v = load_variant(variant_name)
    sp = SelfPlay(v, None, {"king_safety": 1, "psq": 1, "noise": NOISE}, max_plies=default_max_plies(v))
    sp.play(999, nodes)  # warm-up
    plies = 0
    games_moves = []
    t0 = time.process_time()
    w0 = time.perf_counter()
    for seed in range(games):
        _, n, _, _ = sp.play(seed, nodes)
        plies += n
        games_moves.append([int(m) for m in sp.moves[:n]])
    dt = time.process_time() - t0
    return games / dt, plies / dt, games / (time.perf_counter() - w0), games_moves


def python_games(variant_name: str, nodes: int, kernel_moves: list[list[int]], hash_mb: int = 1
                 ) -> tuple[float, float, int]:
    v = load_variant(variant_name)
    plies = 0
    same = 0
    t0 = time.process_time()
    for seed, km in enumerate(kernel_moves):
        pos = Position.start(v)
        opening = [Move(m).usi() for m in km[:2]]
        for m in opening:
            pos.push_usi(m)
        a = EnginePlayer(v, nodes=nodes, hash_mb=hash_mb, seed=seed, noise=NOISE)
        b = EnginePlayer(v, nodes=nodes, hash_mb=hash_mb, seed=seed, noise=NOISE)
        res = python_play_game(pos, (a, b), max_plies=default_max_plies(v), moves_before=opening)
        plies += res.plies
        same += res.moves == [Move(m).usi() for m in km]
    dt = time.process_time() - t0
    return len(kernel_moves) / dt, plies / dt, same


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--peer-games", type=int, default=6)
    ap.add_argument("--variants", default="minishogi,judkins,shogi7x7,shogi,ctrl5,ctrl7,ctrl9")
    args = ap.parse_args()
    print(f"self-play at {args.nodes} nodes/move, one process; rates per CPU-second (machine shared)")
    print(f"{'variant':10s} {'kernel games/s':>15s} {'kernel pos/s':>13s} {'(wall games/s)':>15s} "
          f"{'python games/s':>15s} {'python pos/s':>13s} {'ratio (pos/s)':>14s} {'same moves':>11s} "
          f"{'python-16MB pos/s':>18s} {'ratio':>7s}")
    for name in args.variants.split(","):
        kg, kp, kw, moves = kernel_games(name, args.nodes, args.games)
        pg, pp, same = python_games(name, args.nodes, moves[: args.peer_games])
        _, p16, _ = python_games(name, args.nodes, moves[: args.peer_games], hash_mb=16)
        print(f"{name:10s} {kg:15.2f} {kp:13.0f} {kw:15.2f} {pg:15.2f} {pp:13.0f} {kp / pp:13.1f}x "
              f"{same:>5d}/{min(args.peer_games, len(moves))} {p16:18.0f} {kp / p16:6.1f}x", flush=True)


if __name__ == "__main__":
    main()
